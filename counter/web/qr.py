"""QR codes for links, drawn here as inline SVG: no image service is asked."""

from markupsafe import Markup


def qr_svg(text: str) -> Markup:
    import segno  # only pages that show a link load it

    code = segno.make(text, error="m")
    return Markup(code.svg_inline(scale=4, dark="#000", light="#fff", omitsize=True))
