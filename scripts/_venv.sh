# Sourced by the other scripts: find a Python the project supports (3.10-3.13) and keep
# .venv installed with what the calling script needs, and no more: a league needs the
# package alone; the tests also need the "dev" extra (test tools, the browser driver and
# pygambit, which pip compiles from source: minutes on a fresh machine).

find_python() {
  for candidate in "${PYTHON:-}" python3 python3.13 python3.12 python3.11 python3.10; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(0 if (3, 10) <= sys.version_info[:2] <= (3, 13) else 1)' 2>/dev/null; then
      echo "$candidate"
      return 0
    fi
  done
  echo "error: Agent League needs Python 3.10 to 3.13 (set PYTHON=/path/to/python3.13)" >&2
  return 1
}

# ensure_venv [EXTRA]: .venv with the package (and the extra, e.g. "dev") installed, once;
# again when pyproject.toml changes. A "dev" install also serves a league.
ensure_venv() {
  local extra=${1:-} stamp=.venv/.installed${1:+-$1}
  if [ -x .venv/bin/league ] && [ -f "$stamp" ] && [ ! pyproject.toml -nt "$stamp" ]; then
    return 0
  fi
  if [ -z "$extra" ] && [ -x .venv/bin/league ] && [ -f .venv/.installed-dev ] &&
     [ ! pyproject.toml -nt .venv/.installed-dev ]; then
    return 0
  fi
  if [ ! -x .venv/bin/python ]; then
    local python
    python=$(find_python) || exit 1
    echo "Creating .venv with $python ..." >&2
    "$python" -m venv .venv
    .venv/bin/python -m pip install --quiet --upgrade pip >&2
  fi
  echo "Installing Agent League${extra:+ with its $extra extra} into .venv ..." >&2
  .venv/bin/python -m pip install --quiet -e ".${extra:+[$extra]}" >&2
  # One sentence, not a traceback, where this interpreter cannot import our JSON-RPC layer.
  .venv/bin/python -c 'import sys
try:
    import sdk.jsonrpc
except ImportError as exc:
    sys.exit(f"error: {exc}")' || exit 1
  touch "$stamp"
}
