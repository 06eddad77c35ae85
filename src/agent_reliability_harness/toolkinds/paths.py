"""Where a path is: inside the working tree, outside it, or unknown; and which paths
are credential files. Paths are read as text (POSIX), never looked up on disk."""

from __future__ import annotations

import posixpath
import re

from .shell import home_form

# Folders anyone may write to or clear: never "outside the working tree" in the
# sense of the rules (scratch space, not the user's files).
SCRATCH = ("/tmp", "/var/tmp", "/private/tmp", "/private/var/folders", "/var/folders", "/dev/shm")
# The agent's own scratch folders (Claude Code keeps plan-mode plans here).
_AGENT_SCRATCH = ("/.claude/plans/",)
# Folders whose recursive delete wipes a system or a user, wherever the tree is.
SYSTEM = frozenset(
    [
        "/",
        "/bin",
        "/boot",
        "/dev",
        "/etc",
        "/home",
        "/lib",
        "/lib64",
        "/opt",
        "/proc",
        "/root",
        "/sbin",
        "/srv",
        "/sys",
        "/usr",
        "/var",
        "/Users",
        "/System",
        "/Library",
        "/Applications",
        "/private",
        "/Volumes",
        "/mnt",
        "/media",
        "/Users/Shared",
    ]
)
_VARIABLE = re.compile(r"\$(?!HOME\b|\{HOME\})")


def resolve(path: str, cwd: str | None) -> str | None:
    """The path made absolute (`~` kept as the home folder's name), or None when it
    cannot be known (a variable, or a relative path with no known directory)."""
    path = home_form(path.strip())
    if not path or _VARIABLE.search(path) or path.startswith(("$(", "`")):
        return None
    if path.startswith(("/", "~")):
        return posixpath.normpath(path)
    if cwd is None:
        return None
    base = resolve(cwd, None)
    return None if base is None else posixpath.normpath(posixpath.join(base, path))


def under(path: str, folder: str) -> bool:
    """Whether `path` is `folder` or inside it (both resolved)."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def is_scratch(path: str) -> bool:
    return any(under(path, d) for d in SCRATCH) or any(a in path for a in _AGENT_SCRATCH)


def outside(path: str | None, root: str | None) -> bool:
    """Whether a resolved path is outside the working tree `root` (False when either is
    unknown, and for scratch folders)."""
    if path is None or root is None:
        return False
    root = resolve(root, None) or ""
    if not root or is_scratch(path):
        return False
    return not under(path, root)


def wipes(path: str | None, root: str | None) -> str | None:
    """Why a recursive delete of this resolved path destroys more than a build folder
    (the home folder, the file system root, a system folder, the working tree or a
    folder that holds it), or None."""
    if path is None:
        return None
    path = path.rstrip("*").rstrip("/") or "/"
    if path == "~":
        return "the home folder"
    if path in SYSTEM or (
        posixpath.dirname(path) in {"/home", "/Users"} and path != "/Users/Shared"
    ):
        return "the file system root" if path == "/" else f"the system folder {path}"
    root = resolve(root, None) if root else None
    if root and under(root, path):
        return "the working tree" if root == path else "a folder that holds the working tree"
    return None


_ENV_SAFE = frozenset({"example", "sample", "template", "dist", "defaults", "default", "schema"})
_SSH_PUBLIC = re.compile(r"(.*\.pub|known_hosts.*|config|authorized_keys.*|environment)")
_NAMED = {
    ".netrc": "a .netrc file",
    "_netrc": "a .netrc file",
    ".pgpass": "a .pgpass file",
    ".pypirc": "a .pypirc file",
    ".git-credentials": "git's stored credentials",
    ".vault-token": "a Vault token",
    "application_default_credentials.json": "Google Cloud credentials",
    "credentials.db": "Google Cloud credentials",
    "access_tokens.db": "Google Cloud credentials",
}


def credential_file(path: str) -> str | None:
    """What credential file this path names (by its name and folder), or None: `.env`
    files (not `.env.example` and the like), `~/.ssh` keys, `~/.aws/credentials`,
    `.netrc`, `.pgpass`, `.pypirc`, git, Docker, kube and gcloud credentials, keychains."""
    clean = home_form(path.strip().strip("\"'"))
    parts = [p for p in clean.split("/") if p]
    if not parts:
        return None
    name, folder = parts[-1], parts[-2] if len(parts) > 1 else ""
    if name == ".env" or (
        name.startswith(".env.") and name[5:].lower() not in _ENV_SAFE and "*" not in name
    ):
        return f"the environment file {name}"
    if folder == ".ssh" and not _SSH_PUBLIC.fullmatch(name):
        return f"the SSH key {name}"
    if folder == ".aws" and name == "credentials":
        return "AWS credentials"
    if (folder, name) in {(".docker", "config.json"), (".kube", "config"), ("gh", "hosts.yml")}:
        return f"{folder.strip('.')} credentials"
    if name.endswith((".keychain", ".keychain-db")) or "Keychains" in parts[:-1]:
        return "a keychain"
    if "private-keys-v1.d" in parts[:-1]:
        return "a GnuPG private key"
    return _NAMED.get(name)
