// Logging in with a token from `remember token create` (or by the link `remember ui` opens).

import { api } from "../api.js";
import { clear, errorBox, h, labelled } from "../ui.js";

export async function render(root, args) {
  const expired = args[0] === "expired";
  const input = h("input", { type: "password", name: "token", autocomplete: "off", required: true, size: 60 });
  const problems = h("div");
  const form = h("form", { onsubmit: async (event) => {
    event.preventDefault();
    clear(problems);
    try {
      await api("/api/session", { method: "POST", body: { token: input.value } });
      location.hash = "#/memories";
      location.reload();
    } catch (error) {
      clear(problems, errorBox(error));
      input.focus();
    }
  } },
    labelled("API token", input, "Make one with `remember token create`; `remember ui` logs you in by itself."),
    h("p", {}, h("button", { type: "submit" }, "Log in")),
    problems,
  );
  clear(root,
    h("h1", {}, "Log in"),
    expired ? errorBox("That login link was used or has expired: run `remember ui` again, or log in with a token.") : null,
    form,
  );
  input.focus();
}
