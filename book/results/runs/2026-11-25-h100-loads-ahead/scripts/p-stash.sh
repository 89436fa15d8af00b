#!/bin/bash
# Stash whatever .deps/carry* or .deps/peers-* this call carried in /tmp/stash.
mkdir -p /tmp/stash && for d in .deps/peers-1 .deps/peers-2 .deps/carry4; do [ -d $d ] && cp -r $d /tmp/stash/; done; ls -R /tmp/stash | head -30; df -h /tmp | tail -1
