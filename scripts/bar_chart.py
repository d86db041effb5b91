"""Horizontal bar charts as standalone SVG, standard library only, for the benchmark reports
written by Python scripts (reports/dedup, reports/ray): people compare bars faster than
digits. One bar per row, its value printed at its end, the unit on the axis title.

    write_bars(path, title, unit, [(label, value, highlight), ...])
"""

from html import escape

ROW = 26
LABEL_WIDTH = 390
BAR_WIDTH = 420
VALUE_WIDTH = 90


def bars_svg(title, unit, rows):
    """The SVG text: rows of (label, value, highlight); highlighted bars are neardup's."""
    top = 46
    height = top + ROW * len(rows) + 34
    width = LABEL_WIDTH + BAR_WIDTH + VALUE_WIDTH
    largest = max((v for _, v, _ in rows), default=0) or 1
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif" '
        'font-size="13">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="10" y="24" font-size="15" font-weight="bold">{escape(title)}</text>',
    ]
    for i, (label, value, highlight) in enumerate(rows):
        y = top + i * ROW
        w = max(1.0, BAR_WIDTH * value / largest)
        colour = "#1f77b4" if highlight else "#9e9e9e"
        out.append(f'<text x="{LABEL_WIDTH - 8}" y="{y + 15}" text-anchor="end">'
                   f'{escape(label)}</text>')
        out.append(f'<rect x="{LABEL_WIDTH}" y="{y + 3}" width="{w:.1f}" height="{ROW - 8}" '
                   f'fill="{colour}"/>')
        out.append(f'<text x="{LABEL_WIDTH + w + 6:.1f}" y="{y + 15}">{value:,.1f}</text>')
    axis_y = top + ROW * len(rows) + 4
    out.append(f'<line x1="{LABEL_WIDTH}" y1="{top}" x2="{LABEL_WIDTH}" y2="{axis_y}" '
               'stroke="#444"/>')
    out.append(f'<text x="{LABEL_WIDTH}" y="{axis_y + 20}" fill="#444">{escape(unit)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_bars(path, title, unit, rows):
    with open(path, "w", encoding="utf-8") as f:
        f.write(bars_svg(title, unit, rows))
