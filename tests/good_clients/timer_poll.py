"""A client that polls on a timer (every 0.1 s) and reads whatever arrives, until the host ends; exit 0.

It never goes quiet, so only the host's own end stops it: the host must end whatever the golden's length.
"""

import json
import os
import select
import sys
import time

PERIOD = 0.1
number = 0
ended = False
while not ended:
    number += 1
    try:
        os.write(1, (json.dumps({"type": "subagent_status", "version": 1, "id": f"tick-{number}"}) + "\n").encode())
    except BrokenPipeError:
        break  # the host went away
    until = time.monotonic() + PERIOD
    while (left := until - time.monotonic()) > 0:  # read what arrives until the next tick
        if select.select([0], [], [], left)[0] and not os.read(0, 65536):
            ended = True  # the host ended
            break
sys.stderr.write(f"timer_poll: {number} polls, the host ended\n")
