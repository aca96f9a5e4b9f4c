"""Fonts for the matplotlib pictures: a fallback chain, so that every label is drawn with glyphs.

matplotlib (3.6 on) takes each character from the first family in a text's family list that has
it. The chain starts with DejaVu Sans (matplotlib's own font: Latin, Greek, Cyrillic and more) and
adds, only when a label needs them:

1. a CJK font installed on the system (``SYSTEM_CJK``, in order: Noto Sans CJK, Source Han Sans,
   WenQuanYi, Microsoft YaHei, PingFang, ...), so a user's own choice comes first;
2. Noto Sans CJK as shipped by the ``noto-cjk-sans-otc`` package (installed with
   ``rootwise[plot]``), registered with matplotlib the first time a label needs it;
3. any other installed font with characters still missing (Thai, Devanagari, ...).

Characters that no font has are said once, by script, with the fix (``MissingFontWarning``),
instead of matplotlib's warning for every glyph at every draw.
"""

from __future__ import annotations

import unicodedata
import warnings
from functools import lru_cache

BASE = "DejaVu Sans"
SYSTEM_CJK = ("Noto Sans CJK SC", "Source Han Sans SC", "Noto Sans SC", "WenQuanYi Micro Hei",
              "WenQuanYi Zen Hei", "Microsoft YaHei", "PingFang SC", "Hiragino Sans GB", "Heiti SC",
              "SimHei", "Noto Sans CJK JP", "Source Han Sans", "Arial Unicode MS")
PACKAGE = "noto_cjk_sans_otc"  # the plot extra's font: Noto Sans CJK 2.004 (SIL OFL 1.1)
# its faces, Simplified Chinese first (matplotlib before 3.11 reads only the first face of a collection)
PACKAGED_FAMILIES = ("Noto Sans CJK SC", "Noto Sans CJK JP")
SCRIPTS = {"CJK": "CJK (Chinese, Japanese, Korean)", "HANGUL": "Hangul (Korean)",
           "HIRAGANA": "Japanese kana", "KATAKANA": "Japanese kana", "BOPOMOFO": "Bopomofo"}


class MissingFontWarning(UserWarning):
    """No installed font has some characters of a picture's labels: they are drawn as boxes."""


def family_for(texts, *, stacklevel: int = 2) -> list[str] | None:
    """The family list that draws every character of ``texts``; None when DejaVu Sans (the default)
    has them all. Warns once (``MissingFontWarning``) about characters no installed font has."""
    needed = dict.fromkeys(ch for text in texts for ch in text if ch.isprintable() and not ch.isspace())
    base = _file_of(BASE)
    missing = [ch for ch in needed if not _has(base, ch)]  # in the order the labels have them
    if not missing:
        return None
    chain = [BASE]
    for family in _candidates():
        where = _file_of(family)
        left = [ch for ch in missing if not _has(where, ch)]
        if len(left) < len(missing):
            chain.append(family)
            missing = left
        if not missing:
            return chain
    _warn_missing(missing, stacklevel + 1)  # counted from here, as warnings.warn
    return chain


def packaged_font() -> str | None:
    """The path of the font file the ``plot`` extra installs, or None without it."""
    try:
        import noto_cjk_sans_otc
    except ImportError:
        return None
    return str(noto_cjk_sans_otc.FONT_PATH)


def _candidates():
    """Families to try, in order: system CJK fonts, the packaged one, then every other font."""
    from matplotlib import font_manager

    installed = {f.name for f in font_manager.fontManager.ttflist}
    tried = {BASE}
    for family in SYSTEM_CJK:
        if family in installed:
            tried.add(family)
            yield family
    path = packaged_font()
    if path is not None:
        _register(path)
        for family in PACKAGED_FAMILIES:
            if family not in tried:
                tried.add(family)
                yield family
    for family in sorted({f.name for f in font_manager.fontManager.ttflist} - tried):
        if not family.startswith("Last Resort"):  # matplotlib's: a box for every character
            yield family


def _register(path: str) -> None:
    """Add a font file to matplotlib's list for this process (once)."""
    from matplotlib import font_manager

    manager = font_manager.fontManager
    if not any(f.fname == path for f in manager.ttflist):
        manager.addfont(path)


def _file_of(family: str) -> tuple[str, int] | None:
    """(path, face index) of ``family``'s upright face nearest to regular weight; None if it is not
    installed. (Read from matplotlib's list: findfont would log each family it has no exact match for.)"""
    from matplotlib import font_manager

    faces = [f for f in font_manager.fontManager.ttflist if f.name == family]
    if not faces:
        return None

    def distance(f) -> tuple[bool, int]:
        weight = font_manager.weight_dict.get(f.weight, f.weight) if isinstance(f.weight, str) else f.weight
        return f.style != "normal", abs(int(weight) - 400)

    best = min(faces, key=distance)
    return best.fname, int(getattr(best, "index", 0))


def _has(where: tuple[str, int] | None, ch: str) -> bool:
    return where is not None and _face(*where).get_char_index(ord(ch)) != 0


@lru_cache(maxsize=64)
def _face(path: str, index: int):
    from matplotlib import ft2font

    return ft2font.FT2Font(path, face_index=index) if index else ft2font.FT2Font(path)


def script_of(ch: str) -> str:
    """The Unicode script a character belongs to, as the first word of its name says it."""
    word = unicodedata.name(ch, "UNNAMED").split()[0]
    return SCRIPTS.get(word, word.capitalize())


def _warn_missing(missing: list[str], stacklevel: int) -> None:
    by_script: dict[str, list[str]] = {}
    for ch in missing:
        by_script.setdefault(script_of(ch), []).append(ch)
    said = "; ".join(f"{script}: {''.join(chars[:8])}"
                     + (f" and {len(chars) - 8} more" if len(chars) > 8 else "")
                     for script, chars in by_script.items())
    fix = ("For Chinese, Japanese and Korean, pip install 'rootwise[plot]' brings Noto Sans CJK, or "
           "install a system font (Debian: apt-get install fonts-noto-cjk)"
           if any(s in SCRIPTS.values() for s in by_script) else
           "Install a font that covers them (for example the Noto font of that script)")
    warnings.warn(f"No installed font has these characters of the labels, so they are drawn as boxes "
                  f"({said}). {fix}; matplotlib sees fonts installed after its font cache was made "
                  "once that cache (fontlist-*.json in matplotlib.get_cachedir()) is deleted.",
                  MissingFontWarning, stacklevel=stacklevel)
    # matplotlib would repeat this for every glyph at every draw: those glyphs are said above
    codes = "|".join(str(ord(ch)) for ch in missing)
    warnings.filterwarnings("ignore", message=rf"Glyph ({codes}) \(", category=UserWarning)
