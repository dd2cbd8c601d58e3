"""A bot that misbehaves at its third decision, as told by its argument (tests/test_players.py):
crash, hang, garbage, illegal, close (closes its stdout and keeps running), badhello."""

import json
import os
import sys
import time

mode = sys.argv[1]
asked = 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        reply = {"type": "hello", "version": 2 if mode == "badhello" else 1}
    elif msg["type"] == "decide":
        asked += 1
        reply = {"type": "answer", "id": msg["id"], "answer": msg["legal"][0]}
        if asked == 3:
            if mode == "crash":
                sys.stderr.write("Traceback: something broke in the bot\n")
                sys.exit(3)
            if mode == "hang":
                time.sleep(60)
            if mode == "garbage":
                sys.stdout.write("I think I'll play the ace\n")
                sys.stdout.flush()
                continue
            if mode == "illegal":
                first = next(a for a in msg["legal"] if a)  # a card the bot does not hold, in place of one it does
                absent = next(c for c in ("RJ", "BJ", "AS", "AH", "AD", "AC", "2S", "3S") if c not in msg["view"]["hand"])
                reply["answer"] = [absent] + list(first[1:]) if isinstance(first, list) else 999
            if mode == "close":
                os.close(1)
                time.sleep(60)
    else:
        break
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
