"""The classes of agent a click is counted under: a person, or which kind of bot. Names only, light
enough for the redirect's path (the classifier that decides them is shortlink.clicks.bots).

Clicks counted or queued before clicks carried a class said only *bot*: the stats show those as
UNKNOWN_BOT. A browser's prefetch is declined before it is a click (shortlink.redirect.outcomes),
so no click is ever counted under a prefetch class.
"""

PERSON = "person"
# What the classifier names a bot: crawlers and search engines, link previewers (including any
# request that says `Purpose: preview`), email and security scanners, uptime monitors and
# schedulers, HTTP libraries and tools, AI agents and assistants.
BOT_CLASSES = ("crawler", "previewer", "scanner", "monitor", "library", "ai_agent")
UNKNOWN_BOT = "unknown_bot"
# Every class the stats report, people first.
REPORTED_CLASSES = (PERSON, *BOT_CLASSES, UNKNOWN_BOT)


def agent_of(class_name: object, bot: bool) -> str:
    """The class of a queued click: its own when it names a bot's class, UNKNOWN_BOT for a bot
    queued before classes (or naming none we know), PERSON for anything else."""
    if not bot:
        return PERSON
    return class_name if isinstance(class_name, str) and class_name in BOT_CLASSES else UNKNOWN_BOT
