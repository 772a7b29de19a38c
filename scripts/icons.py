"""Draw the home-screen icons (static/icon-192.png, icon-512.png) to match static/icon.svg.

python scripts/icons.py      # needs Pillow and the DejaVu fonts (Debian: fonts-dejavu-core)
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

STATIC = Path(__file__).resolve().parents[1] / "static"
GREEN = (31, 111, 67)
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"


def draw(size: int) -> Image.Image:
    # Full-bleed square: launchers that mask icons ("maskable") cut their own shape.
    image = Image.new("RGB", (size, size), GREEN)
    pen = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT, int(size * 0.42))
    pen.text((size / 2, size / 2), "66", font=font, fill="white", anchor="mm")
    return image


if __name__ == "__main__":
    for size in (192, 512):
        draw(size).save(STATIC / f"icon-{size}.png", optimize=True)
