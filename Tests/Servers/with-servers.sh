#!/usr/bin/env bash
# Tests/Servers/with-servers.sh COMMAND [ARG…]: starts nginx and httpbin on free loopback ports,
# runs COMMAND with their SLUICE_NGINX_* and SLUICE_HTTPBIN_URL in the environment, and stops them
# however COMMAND ends. Its exit status is COMMAND's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
servers=$(mktemp -d "${TMPDIR:-/tmp}/sluice-servers.XXXXXX")
trap '"$here/nginx.sh" down "$servers"; "$here/httpbin.sh" down "$servers"; rm -rf "$servers"' EXIT
"$here/nginx.sh" up "$servers"
"$here/httpbin.sh" up "$servers"
. "$servers/nginx.env"
. "$servers/httpbin.env"
"$@"
