#!/usr/bin/env bash
# Tests/Servers/with-servers.sh [--nginx-only] COMMAND [ARG…]: starts nginx, httpbin and redis (or
# nginx alone) on free loopback ports, runs COMMAND with their SLUICE_NGINX_*, SLUICE_HTTPBIN_URL
# and SLUICE_REDIS_* in the environment, and stops them however COMMAND ends. Its exit status is
# COMMAND's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
httpbin=yes
if [ "${1:-}" = --nginx-only ]; then httpbin=no; shift; fi
servers=$(mktemp -d "${TMPDIR:-/tmp}/sluice-servers.XXXXXX")
trap '"$here/nginx.sh" down "$servers"; [ "$httpbin" = no ] || { "$here/httpbin.sh" down "$servers"; "$here/redis.sh" down "$servers"; }; rm -rf "$servers"' EXIT
"$here/nginx.sh" up "$servers"
. "$servers/nginx.env"
if [ "$httpbin" = yes ]; then
  "$here/httpbin.sh" up "$servers"
  . "$servers/httpbin.env"
  "$here/redis.sh" up "$servers"
  . "$servers/redis.env"
fi
"$@"
