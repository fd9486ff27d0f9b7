// Logging in with a token from `remember token create`, or by the link `remember ui` opens
// (#/login/code/<code>: the code is in the address's fragment, which the browser never sends).

import { api, keepSession } from "../api.js";
import { clear, errorBox, h, labelled } from "../ui.js";

export async function render(root, args) {
  let expired = null;
  if (args[0] === "code") {
    history.replaceState(null, "", "#/login");  // the code is spent either way: out of the address and history
    try {
      await logIn({ code: args[1] || "" });
      return;
    } catch (error) {
      expired = error;
    }
  }
  const input = h("input", { type: "password", name: "token", autocomplete: "off", required: true, size: 60 });
  const problems = h("div");
  const form = h("form", { onsubmit: async (event) => {
    event.preventDefault();
    clear(problems);
    try {
      await logIn({ token: input.value });
    } catch (error) {
      clear(problems, errorBox(error));
      input.focus();
    }
  } },
    labelled("API token", input, "Make one with `remember token create`; `remember ui` logs you in by itself."),
    h("p", {}, h("button", { type: "submit" }, "Log in")),
    problems,
  );
  clear(root, h("h1", {}, "Log in"), expired ? errorBox(expired) : null, form);
  input.focus();
}

// A new session for the token (or the code's token); the page starts over with it.
async function logIn(credential) {
  const { session } = await api("/api/session", { method: "POST", body: credential });
  keepSession(session);
  history.replaceState(null, "", "#/home");
  location.reload();
}
