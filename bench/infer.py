"""Template inference on a synthetic mix of memories of known kinds, with MiniLM.

Five kinds of memory that no built-in covers (wine tastings, workouts, plant
care, car services, podcast episodes), twelve of each written from varied
sentence frames with random values, and twenty one-off notes. For each kind:
the share of its memories in the proposal that holds most of them (coverage);
spurious: proposals whose memories are mostly one-off notes, or a second
proposal for a kind already proposed. Targets: coverage 0.80 per kind, at most
one spurious proposal per five.
"""

from __future__ import annotations

import random
from collections import Counter
from datetime import date
from typing import Any

from bench.report import Table
from remember.templates.infer import Note, propose

TODAY = date(2026, 2, 11)
KINDS: dict[str, tuple[str, ...]] = {
    "wine": (
        "Tried a {grape} from {region} tonight, {r}/5, vintage: {year}",
        "Wine: {grape}, region: {region}, {r} stars, would buy again",
        "Opened a bottle of {region} {grape} ({year}), grape: {grape}, tasted of {note}",
        "{grape} tasting at the wine bar, {region}, notes of {note}, {r}/5",
    ),
    "workout": (
        "Gym session: {exercise} {sets}x{reps} at {kg} kg, felt {feel}",
        "Workout today, {exercise}: {sets} sets of {reps}, weight: {kg} kg",
        "Leg day, did {exercise} {sets}x{reps} with {kg} kg, {feel}",
        "Strength training: {exercise}, sets: {sets}, reps: {reps}, {kg} kg",
    ),
    "plant": (
        "Watered the {plant} today, soil: {soil}, leaves look {look}",
        "Plant care: {plant}, soil {soil}, added fertiliser, next watering in {n} days",
        "Repotted my {plant}, the soil was {soil} and roots look {look}",
        "{plant} update: leaves {look}, soil: {soil}, moved it to the window",
    ),
    "car": (
        "Car service at {garage}: oil change, mileage: {miles}, cost ${price}",
        "Took the car to {garage} for new brakes, mileage: {miles}, paid ${price}",
        "Car maintenance: tyre rotation at {garage}, {miles} miles, ${price}",
        "Oil and filter changed at {garage}, mileage {miles}, ${price} total",
    ),
    "podcast": (
        "Listened to episode {n} of {show}, host: {host}, rating {r}/5",
        "Podcast: {show} ep {n} with {host} on {topic}, {r} stars",
        "Great {show} episode about {topic}, host: {host}, {r}/5",
        "{show} podcast, episode {n}: {topic}. Host {host}, {r} out of 5",
    ),
}
VALUES: dict[str, list[str]] = {
    "grape": ["Merlot", "Pinot Noir", "Riesling", "Malbec", "Syrah", "Chardonnay"],
    "region": ["Rioja", "Burgundy", "Mendoza", "Barossa", "Tuscany", "Napa"],
    "note": ["cherry", "oak", "pepper", "citrus", "vanilla"],
    "exercise": ["squats", "deadlifts", "bench press", "rows", "overhead press"],
    "feel": ["strong", "tired", "great", "sore"],
    "plant": ["monstera", "fiddle leaf fig", "snake plant", "pothos", "basil"],
    "soil": ["dry", "moist", "soggy"],
    "look": ["healthy", "yellow", "droopy", "glossy"],
    "garage": ["Kwik Fit", "Midas", "Joe's Garage", "AutoCare"],
    "show": ["Hardcore History", "Radiolab", "Planet Money", "The Daily", "Acquired"],
    "host": ["Dan Carlin", "Jad Abumrad", "Ben Gilbert", "Michael Barbaro"],
    "topic": ["the Mongols", "inflation", "sleep", "chip making", "octopuses"],
}
ONE_OFFS = (
    "The plumber comes on Thursday between 9 and 11", "Mum's new phone number ends in 4471",
    "Parking at the office is now on level 3", "Idea for the garden: a small pond near the fence",
    "The wifi password at the cabin is on the fridge", "Remember that Sam is allergic to peanuts",
    "Our lease renews in September", "The library closes at 6 on Saturdays",
    "Booked the dentist for the 14th", "My shoe size in EU is 43", "The blue mug was a gift from Ana",
    "Gate code for the building is 2580", "Tax documents are due to the accountant soon",
    "The cat's vaccination is due next spring", "Anniversary dinner idea: the place by the harbour",
    "Passport photo needs a white background", "I prefer aisle seats on long flights",
    "The recycling goes out on Tuesdays", "Grandpa's watch needs a new battery",
    "Try the bakery on Elm Street for sourdough",
)  # fmt: skip


def mix(seed: int = 11, per_kind: int = 12) -> list[tuple[str, str | None]]:
    """(text, kind or None) in a shuffled order."""
    rng = random.Random(seed)
    rows: list[tuple[str, str | None]] = []
    for kind, frames in KINDS.items():
        for index in range(per_kind):
            values = {key: rng.choice(options) for key, options in VALUES.items()}
            values |= {"r": str(rng.randint(2, 5)), "year": str(rng.randint(2012, 2022)), "sets": str(rng.randint(3, 5)),  # noqa: E501
                       "reps": str(rng.randint(5, 12)), "kg": str(rng.randrange(40, 140, 5)), "n": str(rng.randint(2, 90)),  # noqa: E501
                       "miles": f"{rng.randint(10, 90)},{rng.randint(100, 999)}", "price": str(rng.randint(40, 600))}  # fmt: skip  # noqa: E501
            rows.append((frames[index % len(frames)].format(**values), kind))
    rows += [(text, None) for text in ONE_OFFS]
    rng.shuffle(rows)
    return rows


def score(rows: list[tuple[str, str | None]], proposals: list[Any]) -> dict[str, Any]:
    kind_of = {f"m{i}": kind for i, (_, kind) in enumerate(rows)}
    sizes = Counter(kind for _, kind in rows if kind)
    coverage = dict.fromkeys(sizes, 0.0)
    spurious, seen = 0, set()
    for proposal in proposals:
        kinds = Counter(kind_of[mid] for mid in proposal.member_ids)
        major, count = kinds.most_common(1)[0]
        if major is None or major in seen:
            spurious += 1
            continue
        seen.add(major)
        coverage[major] = max(coverage[major], count / sizes[major])
    return {"coverage": coverage, "spurious": spurious, "proposals": len(proposals),
            "spurious_per_5": 5 * spurious / max(1, len(proposals))}  # fmt: skip


def run(quick: bool) -> dict[str, Any]:
    """Print and return coverage per kind and spurious proposals."""
    from remember.search.embedders import MiniLMEmbedder

    del quick
    embedder = MiniLMEmbedder()
    rows = mix()
    vectors = embedder.embed([text for text, _ in rows])
    notes = [Note(f"m{i}", text, [float(v) for v in vectors[i]]) for i, (text, _) in enumerate(rows)]
    result = score(rows, propose(notes, TODAY))
    table = Table("Template inference (5 kinds x 12 memories + 20 one-off notes, MiniLM)", ["kind", "coverage"])
    for kind, value in result["coverage"].items():
        table.add(kind, value)
    table.add("spurious proposals", f"{result['spurious']} of {result['proposals']}")
    table.print()
    return result
