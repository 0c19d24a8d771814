"""Words a generated code must not spell: codes are shown to people, printed, read aloud.

A short list on purpose (the common English offensive words); a code is compared after folding
case and the digits that stand in for letters (0→o, 1→i, 3→e, 4→a, 5→s, 7→t, 8→b), so `sh1t`
counts as `shit`. Custom slugs are the owner's choice and are not checked.
"""

BLOCKED_WORDS = frozenset(
    {
        "anal",
        "anus",
        "arse",
        "ass",
        "bitch",
        "boob",
        "cock",
        "coon",
        "crap",
        "cum",
        "cunt",
        "dick",
        "dildo",
        "fag",
        "fuck",
        "jizz",
        "kike",
        "nazi",
        "nigga",
        "nigger",
        "penis",
        "piss",
        "porn",
        "pussy",
        "rape",
        "sex",
        "shit",
        "slut",
        "spic",
        "tit",
        "twat",
        "vagina",
        "wank",
        "whore",
    }
)
_LETTERS_FOR_DIGITS = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b"})


def spells_a_blocked_word(code: str) -> bool:
    folded = code.lower().translate(_LETTERS_FOR_DIGITS)
    return any(word in folded for word in BLOCKED_WORDS)
