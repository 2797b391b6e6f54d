"""Hand-written SVG for the page's charts, standard library only: the drawing primitives, the colours, the
axes' ticks, and writing a chart into the "performance" folder beside the page (or removing one a run no
longer draws). Every number is formatted with a fixed precision and every list is walked in a fixed order, so
the same JSON gives the same bytes."""

import math
import os

CHART_DIR = "performance"
CHART_FONT = "-apple-system, BlinkMacSystemFont, 'Segoe UI', Helvetica, Arial, sans-serif"
INK = "#24292f"
MUTED = "#57606a"
GRID = "#d0d7de"
OURS_COLOR = "#0969da"
REFERENCE_COLOR = "#bc4c00"
PEER_COLOR = "#8c959f"


def xml_text(value):
    """Text escaped for XML."""
    return (str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("\"", "&quot;"))


def px(value):
    """A coordinate with one decimal, without a trailing '.0'."""
    text = "%.1f" % value
    return text[:-2] if text.endswith(".0") else text


def text_width(text, size):
    """A rough width of text in the chart font, enough to lay out labels."""
    return len(text) * size * 0.56


class Svg:
    """An SVG document built element by element."""

    def __init__(self, width, height, title, description):
        self.width = width
        self.height = height
        self.parts = [
            '<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" '
            'aria-labelledby="chart-title chart-desc" font-family="%s">' % (
                width, height, width, height, xml_text(CHART_FONT)),
            '<title id="chart-title">%s</title>' % xml_text(title),
            '<desc id="chart-desc">%s</desc>' % xml_text(description),
            '<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>' % (width, height),
        ]

    def add(self, element):
        self.parts.append(element)

    def text(self, x, y, value, size=12, anchor="start", fill=INK, weight=None, style=None):
        self.add('<text x="%s" y="%s" font-size="%d"%s%s%s fill="%s">%s</text>' % (
            px(x), px(y), size, ' text-anchor="%s"' % anchor if anchor != "start" else "",
            ' font-weight="%s"' % weight if weight else "", ' font-style="%s"' % style if style else "",
            fill, xml_text(value)))

    def line(self, x1, y1, x2, y2, stroke=INK, width=1, dash=None):
        self.add('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"%s/>' % (
            px(x1), px(y1), px(x2), px(y2), stroke, px(width),
            ' stroke-dasharray="%s"' % dash if dash else ""))

    def rect(self, x, y, width, height, fill, stroke=None, stroke_width=1, dash=None, opacity=None):
        self.add('<rect x="%s" y="%s" width="%s" height="%s" fill="%s"%s%s%s/>' % (
            px(x), px(y), px(max(0.0, width)), px(max(0.0, height)), fill,
            ' stroke="%s" stroke-width="%s"' % (stroke, px(stroke_width)) if stroke else "",
            ' stroke-dasharray="%s"' % dash if dash else "",
            ' fill-opacity="%s"' % opacity if opacity is not None else ""))

    def polygon(self, points, fill, stroke=None):
        self.add('<polygon points="%s" fill="%s"%s/>' % (
            " ".join("%s,%s" % (px(x), px(y)) for x, y in points), fill,
            ' stroke="%s" stroke-width="1"' % stroke if stroke else ""))

    def render(self):
        return "\n".join(self.parts + ["</svg>"]) + "\n"


def write_chart(directory, name, svg):
    """Write the chart as directory/name."""
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "w", encoding="utf-8", newline="\n") as file:
        file.write(svg.render())


def remove_chart(directory, name):
    """Remove directory/name, left by an earlier run, when this run draws no such chart."""
    path = os.path.join(directory, name)
    if os.path.exists(path):
        os.remove(path)


def nice_step(span, ticks=6):
    """A round step (1, 2, 2.5 or 5 times a power of ten) for about the given number of ticks."""
    raw_step = span / max(1, ticks)
    magnitude = 10 ** math.floor(math.log10(raw_step))
    for factor in (1, 2, 2.5, 5, 10):
        if factor * magnitude >= raw_step:
            return factor * magnitude
    return 10 * magnitude


def log_ticks(low, high):
    """The 1-2-5 steps (in µs, integers) from the largest at or below low to the smallest at or above high."""
    low, high = max(1, low), max(2, high)
    steps = [factor * 10 ** decade for decade in range(0, 10) for factor in (1, 2, 5)]
    first = max([step for step in steps if step <= low] or [1])
    last = min([step for step in steps if step >= high] or [steps[-1]])
    if last <= first:
        last = min(step for step in steps if step > first)
    return [step for step in steps if first <= step <= last]


def wrap(text, limit):
    """The words of text in lines of at most limit characters (a longer word stands alone)."""
    lines, current = [], ""
    for word in text.split():
        if current and len(current) + 1 + len(word) > limit:
            lines.append(current)
            current = word
        else:
            current = (current + " " + word).strip()
    return lines + ([current] if current else [])
