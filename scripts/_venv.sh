# Sourced by the other scripts: find a Python the project supports and keep .venv installed.
# jsonrpcserver 5.0.9 (our JSON-RPC layer) does not import on Python 3.12+, hence 3.10-3.11.

find_python() {
  for candidate in "${PYTHON:-}" python3.11 python3.10 python3; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(0 if (3, 10) <= sys.version_info[:2] < (3, 12) else 1)' 2>/dev/null; then
      echo "$candidate"
      return 0
    fi
  done
  echo "error: Agent League needs Python 3.10 or 3.11 (set PYTHON=/path/to/python3.11)" >&2
  return 1
}

ensure_venv() {
  if [ ! -x .venv/bin/league ] || [ pyproject.toml -nt .venv/.installed ]; then
    local python
    python=$(find_python) || exit 1
    echo "Installing Agent League into .venv with $python ..." >&2
    "$python" -m venv .venv
    .venv/bin/python -m pip install --quiet --upgrade pip >&2
    .venv/bin/python -m pip install --quiet -e ".[dev]" >&2
    touch .venv/.installed
  fi
}
