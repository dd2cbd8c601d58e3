"""The report's block language rendered twice, to Markdown and to a single-file HTML page.

A report is a list of blocks (("h", level, text), ("p", text), ("headline", text), ("list", items),
("code", text, language), ("table", frame), ("figure", path, caption), ("links", [(text, href)])), so
report.md and report.html always say the same thing.  The run report, the Finding Friends report and the
regret analysis write their tables with the same functions.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path

import pandas as pd

from tractor_sim.report import drawing
from tractor_sim.report.numbers import number


def md_table(df: pd.DataFrame) -> str:
    def cell(v):
        return (v if isinstance(v, str) else number(v)).replace("|", "\\|")
    lines = ["| " + " | ".join(cell(str(c)) for c in df.columns) + " |",
             "|" + "---|" * len(df.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines)


def html_table(df: pd.DataFrame) -> str:
    def cell(v):
        return html.escape(v if isinstance(v, str) else number(v))
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in df.columns)
    body = "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in row) + "</tr>"
                   for row in df.itertuples(index=False))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def markdown(blocks: list[tuple]) -> str:
    out = []
    for kind, *args in blocks:
        if kind == "h":
            out.append("#" * args[0] + " " + args[1])
        elif kind == "p":
            out.append(args[0])
        elif kind == "headline":
            out.append(f"**{args[0]}**")
        elif kind == "list":
            out.append("\n".join(f"- {item}" for item in args[0]))
        elif kind == "code":
            out.append(f"```{args[1] if len(args) > 1 else ''}\n{args[0]}\n```")
        elif kind == "table":
            out.append(md_table(args[0]))
        elif kind == "figure":
            out.append(f"![{args[1]}]({args[0]})\n\n*{args[1]}*")
        elif kind == "links":
            out.append("\n".join(f"- [{text}]({href})" for text, href in args[0]))
    return "\n\n".join(out) + "\n"


CSS = """body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;line-height:1.4}
table{border-collapse:collapse;margin:1em 0;font-size:90%}th,td{border:1px solid #bbb;padding:3px 7px}
th{background:#eee}pre{background:#f5f5f5;padding:.7em;overflow-x:auto}img{max-width:100%}
figure{margin:1.5em 0}figcaption{font-style:italic}.headline{font-size:115%;font-weight:bold}"""


def html_page(blocks: list[tuple], title: str, run_dir: Path) -> str:
    out = []
    for kind, *args in blocks:
        if kind == "h":
            out.append(f"<h{args[0]}>{html.escape(args[1])}</h{args[0]}>")
        elif kind == "p":
            out.append(f"<p>{html.escape(args[0])}</p>")
        elif kind == "headline":
            out.append(f'<p class="headline">{html.escape(args[0])}</p>')
        elif kind == "list":
            out.append("<ul>" + "".join(f"<li>{html.escape(i)}</li>" for i in args[0]) + "</ul>")
        elif kind == "code":
            out.append(f"<pre><code>{html.escape(args[0])}</code></pre>")
        elif kind == "table":
            out.append(html_table(args[0]))
        elif kind == "figure":
            data = base64.b64encode((run_dir / args[0]).read_bytes()).decode("ascii")
            out.append(f'<figure><img alt="{html.escape(args[1])}" src="data:image/png;base64,{data}">'
                       f"<figcaption>{html.escape(args[1])}</figcaption></figure>")
        elif kind == "links":
            out.append("<ul>" + "".join(f'<li><a href="{html.escape(h)}">{html.escape(t)}</a></li>'
                                        for t, h in args[0]) + "</ul>")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f"<style>{CSS}</style></head><body>\n" + "\n".join(out) + "\n</body></html>\n")


def figure(blocks: list, run_dir: Path, name: str, caption: str, plot: str, data, *extra) -> None:
    """One figure into blocks: ``plots.<plot>(data, path, *extra)``, drawn by report.drawing (perhaps in
    a helper process while the report goes on); ``settled`` makes it the figure, or a line saying why it
    was skipped."""
    path = run_dir / "figures" / name
    blocks.append(("drawing", drawing.draw(plot, path, data, *extra), (plot, path, data, *extra),
                   f"figures/{name}", caption))


def settled(blocks: list) -> list:
    """The blocks with each figure waited for: a figure must never sink the report."""
    out = []
    for block in blocks:
        if block[0] != "drawing":
            out.append(block)
            continue
        _, future, call, rel, caption = block
        try:
            drawing.drawn(future, *call)
        except Exception as e:  # noqa: BLE001 - any plot error: the report says it and goes on
            out.append(("p", f"{caption}: skipped, the plot failed ({type(e).__name__}: {e})."))
        else:
            out.append(("figure", rel, caption))
    return out
