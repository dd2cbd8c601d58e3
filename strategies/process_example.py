"""Process bots: programs in any language answering tractor-sim's JSON Lines protocol (docs/bots.md).

    tractor-sim compare process_example expert --module strategies/process_example.py --sprt 0,0.05

registers ``process_example`` (bot.py, beside this file) and ``process_example_js`` (bot.js, the
same bot in JavaScript: needs node).  In an experiment file a bot can also be named inline:
``a = {policy = "process", command = ["python3", "strategies/bot.py"], timeout = 5}``.
"""

import os
import sys

from tractor_sim.play.registry import process_policy

HERE = os.path.dirname(os.path.abspath(__file__))

process_policy("process_example", command=[sys.executable, os.path.join(HERE, "bot.py")], timeout=5.0,
               description="the reference bot in Python (strategies/bot.py)")
process_policy("process_example_js", command=["node", os.path.join(HERE, "bot.js")], timeout=5.0,
               description="the same bot in JavaScript (strategies/bot.js)")
