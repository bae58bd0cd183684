#!/usr/bin/env bash
# `npm start` brings up the local platform. The supervisor (`orrery up`) arrives with issue 11.
echo "npm start: the local platform supervisor (orrery up) is not built yet — see docs/status.md. Run 'npm test' meanwhile." >&2
exit 1
