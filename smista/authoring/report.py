"""Rendering an :class:`~smista.authoring.evaluate.Evaluation` as text or as one HTML page.

Pure string building; never performs I/O. The HTML page is self-contained
(inline CSS, no scripts, fonts, images or links to fetch) and every piece of
user text (prompts, reasons, file names) is HTML-escaped. The confusion matrix
is a heat map: each cell's shade is its share of the row (the expected intent),
green on the diagonal and red off it.
"""

from __future__ import annotations

import html

from smista.authoring.evaluate import Evaluation

__all__ = ["render_html", "render_text"]


def render_text(ev: Evaluation, *, max_misses: int | None = None) -> str:
    """The plain-text report ``smista eval`` prints."""
    lines = [f"accuracy: {ev.accuracy:.1%} ({ev.correct}/{ev.total})", ""]
    lines.append(f"{'intent':<10} {'precision':>9} {'recall':>7} {'f1':>6} {'support':>8}")
    for s in ev.scores:
        lines.append(
            f"{s.intent:<10} {s.precision:>9.3f} {s.recall:>7.3f} {s.f1:>6.3f} {s.support:>8}"
        )
    lines.append(f"{'macro F1':<10} {'':>9} {'':>7} {ev.macro_f1:>6.3f} {ev.total:>8}")
    lines += ["", "confusion matrix (rows: expected, columns: predicted)"]
    width = max(len(x) for x in ev.labels) + 1
    lines.append(" " * width + "".join(f"{x[:9]:>10}" for x in ev.labels))
    for label, row in zip(ev.labels, ev.matrix, strict=True):
        lines.append(f"{label:<{width}}" + "".join(f"{n:>10}" for n in row))
    misses = ev.misses if max_misses is None else ev.misses[:max_misses]
    lines += ["", f"misclassified: {len(ev.misses)}"]
    for m in misses:
        lines.append(f"  {m.where}: expected {m.expected}, got {m.got}: {m.text!r}")
        lines.append(f"      {m.reason}")
    if len(misses) < len(ev.misses):
        lines.append(f"  ... and {len(ev.misses) - len(misses)} more")
    return "\n".join(lines)


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem;color:#1b1f24;
max-width:72rem}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}
table{border-collapse:collapse;margin:.5rem 0}
th,td{border:1px solid #d0d7de;padding:.3rem .6rem;text-align:right}
th{background:#f6f8fa}td.text{text-align:left;max-width:40rem;overflow-wrap:anywhere}
table.matrix td{min-width:3.5rem;font-variant-numeric:tabular-nums}
.summary{font-size:1.1rem}.muted{color:#57606a}
"""


def _cell_style(count: int, row_total: int, diagonal: bool) -> str:
    share = count / row_total if row_total else 0.0
    if count == 0:
        return "background:#ffffff"
    hue = 130 if diagonal else 0
    lightness = 95 - 55 * share
    color = "#ffffff" if lightness < 60 else "#1b1f24"
    return f"background:hsl({hue},65%,{lightness:.0f}%);color:{color}"


def render_html(
    ev: Evaluation,
    *,
    title: str = "smista evaluation",
    source: str = "",
    rules: str | None = None,
    rules_sha256: str | None = None,
    generated: str | None = None,
) -> str:
    """A self-contained HTML report with the confusion-matrix heat map.

    ``rules`` (the rules file), ``rules_sha256`` (its content hash) and
    ``generated`` (when the report was made; the caller reads the clock) are
    shown under the title, so a saved report says what it measured.
    """
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(title)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{e(title)}</h1>",
    ]
    if source:
        parts.append(f'<p class="muted">{e(source)}</p>')
    facts = [
        ("rules", rules),
        ("rules sha256", rules_sha256),
        ("generated", generated),
    ]
    shown = [f"{name}: <code>{e(value)}</code>" for name, value in facts if value]
    if shown:
        parts.append(f'<p class="muted" id="provenance">{"; ".join(shown)}</p>')
    parts.append(
        f'<p class="summary">accuracy <strong>{ev.accuracy:.1%}</strong> '
        f"({ev.correct}/{ev.total}), macro F1 {ev.macro_f1:.3f}</p>"
    )
    parts.append("<h2>Confusion matrix</h2>")
    parts.append(
        '<p class="muted">rows: expected intent; columns: predicted intent; '
        "shade: share of the row</p>"
    )
    parts.append('<table class="matrix" id="confusion-matrix"><tr><th>expected \\ predicted</th>')
    parts += [f"<th>{e(label)}</th>" for label in ev.labels]
    parts.append("</tr>")
    for i, (label, row) in enumerate(zip(ev.labels, ev.matrix, strict=True)):
        total = sum(row)
        parts.append(f"<tr><th>{e(label)}</th>")
        for j, count in enumerate(row):
            style = _cell_style(count, total, i == j)
            parts.append(
                f'<td style="{style}" title="expected {e(label)}, '
                f'predicted {e(ev.labels[j])}">{count}</td>'
            )
        parts.append("</tr>")
    parts.append("</table>")
    parts.append(
        "<h2>Per intent</h2><table><tr><th>intent</th><th>precision</th>"
        "<th>recall</th><th>F1</th><th>support</th><th>predicted</th></tr>"
    )
    for s in ev.scores:
        parts.append(
            f"<tr><th>{e(s.intent)}</th><td>{s.precision:.3f}</td><td>{s.recall:.3f}</td>"
            f"<td>{s.f1:.3f}</td><td>{s.support}</td><td>{s.predicted}</td></tr>"
        )
    parts.append("</table>")
    parts.append(f"<h2>Misclassified ({len(ev.misses)})</h2>")
    if ev.misses:
        parts.append(
            "<table><tr><th>case</th><th>prompt</th><th>contexts</th><th>expected</th>"
            "<th>got</th><th>reason</th></tr>"
        )
        for m in ev.misses:
            parts.append(
                f'<tr><td class="text">{e(m.where)}</td>'
                f'<td class="text">{e(m.text)}</td>'
                f'<td class="text">{e(", ".join(m.contexts)) or "-"}</td>'
                f"<td>{e(m.expected)}</td><td>{e(m.got)}</td>"
                f'<td class="text">{e(m.reason)}</td></tr>'
            )
        parts.append("</table>")
    else:
        parts.append("<p>none</p>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
