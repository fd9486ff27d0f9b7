"""Utterances that fit no template: small talk, thanks, and questions or instructions to the assistant.

Their centroid is the *small talk* signal of the engine (N in docs/suggestions.md):
the closer what the user said is to it, the less any template fits. They were
written apart from the labelled sets (and checked against both: none comes within
a cosine of 0.7 of a labelled utterance), and cover what an assistant hears
between things worth remembering: greetings and acknowledgements, requests
("Draft a tweet announcing our launch"), general questions, remarks on the
weather or the day, and general facts that are not a personal note.
"""

from __future__ import annotations

SMALL_TALK: tuple[str, ...] = (
    "hi there", "hey", "thanks a lot", "cool, thanks", "brb", "got it", "sure, go ahead", "no thanks", "perfect",
    "alright, next question", "scratch that", "wait what", "haha that's funny", "okay cool", "cheers mate",
    "see you later", "hello again", "you're the best", "that's not what I meant", "How tall is Mount Everest?",
    "What year did the Berlin Wall fall?", "Who won the world cup in 2018?", "Who wrote Hamlet?",
    "Can you check my maths homework?", "Draft a tweet announcing our launch",
    "What's the difference between a virus and a bacterium?", "Is it safe to eat raw cookie dough?",
    "Call an Uber to the station", "Read me my last message", "Translate 'good luck' into French",
    "What does 'ephemeral' mean?", "Make a packing list for a beach trip",
    "Help me write a birthday message for my boss", "How many days until Easter?",
    "Which is bigger, a lion or a tiger?", "Suggest a name for my new puppy", "Should I bring an umbrella today?",
    "how do I center a div", "Fix the grammar in this sentence", "How many calories in an avocado?",
    "What's the population of Canada?", "Do you remember my name?", "Say something nice", "Can you make that shorter",
    "Any good sci-fi shows to watch?", "Is 17 a prime number?", "Find me a recipe for lasagna",
    "What's trending on the news?", "Send that to my email", "Scroll up", "Try a different answer",
    "The neighbours are noisy again", "The sky is really grey", "Monday again", "my phone battery is dying",
    "The internet is slow", "meh", "hmm interesting", "It is what it is", "Dogs are loyal animals",
    "The sun rises in the east", "Traffic is bad everywhere these days", "Coffee is popular around the world",
    "Paris is the capital of France",
    "Not a cloud in sight", "It's pouring outside", "Bit humid today, isn't it", "Spring is finally here",
    "Autumn is the best season", "The days are getting shorter", "It's going to be a scorcher",
    "Clouds rolling in from the west", "The roads are icy", "The bus was packed", "Everyone seems to be on holiday",
    "Prices keep going up", "The city is so quiet in August", "Fridays always drag", "Weekends go by too quickly",
    "Nothing much going on", "It's been a mild winter", "The birds are loud", "Hot chocolate weather",
    "The leaves are falling already",
)  # fmt: skip
