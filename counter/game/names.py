"""Players' names, tidied once on the way in, so that one player is always one name."""

import re
import unicodedata

from counter.game.refusals import N_, Invalid

NAME_MAX_LENGTH = 40
DEFAULT_NAMES: tuple[str, str] = (N_("Player 1"), N_("Player 2"))

ZERO_WIDTH_JOINER = "\u200d"
# Removed from names: format characters (bidi controls, invisibles) and what a font may show
# as nothing (a combining grapheme joiner, Hangul fillers, Khmer inherent vowels, variation
# selectors, a braille blank); a zero-width joiner or a variation selector stays inside an emoji.
_IGNORABLE = re.compile(
    r"[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2800\u3164"
    r"\ufe00-\ufe0f\uffa0\U000e0100-\U000e01ef]"
)
_EMOJI_GLUE = {ZERO_WIDTH_JOINER, *map(chr, range(0xFE00, 0xFE10))}


def _visible(name: str) -> str:
    kept: list[str] = []
    for char in name:
        if unicodedata.category(char) != "Cf" and not _IGNORABLE.match(char):
            kept.append(char)
        elif char in _EMOJI_GLUE and kept and unicodedata.category(kept[-1]) in {"So", "Sk"}:
            kept.append(char)  # ❤️, 👩‍👧: part of the emoji before it
    return "".join(kept).rstrip(ZERO_WIDTH_JOINER)


def _unshowable(char: str) -> bool:
    """Unassigned code points pass: a phone may know them (a newer emoji) though Python not."""
    code = ord(char)
    if 0xFDD0 <= code <= 0xFDEF or (code & 0xFFFE) == 0xFFFE:  # noncharacters, for good
        return True
    return unicodedata.category(char) in {"Cc", "Co", "Cs"}


def parse_name(value: object, seat: int, default: str | None = None) -> str:
    """A player's name: NFC, invisible characters out, spaces folded; blank is the default."""
    fallback = default or DEFAULT_NAMES[seat - 1]
    if value is None:
        return fallback
    if not isinstance(value, str):
        raise Invalid(N_("The name of player %(seat)s must be text."), seat=seat)
    # Counted as sent too, so that a client can check it (the API's maxLength).
    if len(value) > NAME_MAX_LENGTH:
        raise _too_long(seat, len(value))
    name = " ".join(_visible(unicodedata.normalize("NFC", value)).split())
    if not name:
        return fallback
    if len(name) > NAME_MAX_LENGTH:  # NFC writes a few characters as two
        raise _too_long(seat, len(name))
    if any(_unshowable(char) for char in name):
        raise Invalid(
            N_("The name of player %(seat)s holds characters that cannot be shown."), seat=seat
        )
    return name


def _too_long(seat: int, length: int) -> Invalid:
    return Invalid(
        N_("The name of player %(seat)s is %(length)s characters long; keep it to %(most)s."),
        seat=seat,
        length=length,
        most=NAME_MAX_LENGTH,
    )


def parse_names(
    first: object, second: object, defaults: tuple[str, str] = DEFAULT_NAMES
) -> tuple[str, str]:
    names = (parse_name(first, 1, defaults[0]), parse_name(second, 2, defaults[1]))
    if names[0].casefold() == names[1].casefold():
        raise Invalid(
            N_("Both players are called %(name)s; they need different names."), name=names[0]
        )
    return names
