"""The production image and the compose stack without Docker (none runs in CI).

``image_build`` makes the image's file system as the Dockerfile says: a copy of the build context
filtered by ``.dockerignore`` (Docker's matching rules, below), a fresh virtualenv standing in for
the base image's Python, and every ``RUN`` step run in order with the Dockerfile's ``ENV`` and
``WORKDIR``. Image paths (``/app``) live under a temporary root. Two kinds of step are changed,
each for a stated reason (``RUN_ADAPTATIONS``); anything else the Dockerfile grows is run as
written or, for an instruction this module does not know, refused.

``service_command`` and ``service_environment`` read a service of docker-compose.yml as
``docker compose`` would: its ``command`` (a string is split like a shell does), and its
environment from the image's ``ENV``, then ``env_file``, then ``environment`` (later wins), with
``${VAR}``, ``${VAR:?message}``, ``${VAR:-default}`` and ``$$`` interpolated from the ``.env``
beside the compose file.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

# --- .dockerignore ------------------------------------------------------------------------------


def _dockerignore_regex(pattern: str) -> re.Pattern[str]:
    """Docker's pattern syntax (moby/patternmatcher): Go's filepath.Match (``*`` and ``?``
    never cross ``/``, ``[...]`` classes) plus ``**``, any number of directories."""
    out = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**", index):
            index += 2
            if pattern.startswith("/", index):  # "**/" : zero or more directories
                index += 1
                out.append("(?:.*/)?")
            else:
                out.append(".*")
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", index + 1)
            if end == -1:
                raise ValueError(f".dockerignore: unclosed [ in {pattern!r}")
            out.append(pattern[index : end + 1])  # Go's classes read as Python's: [a-z], [^/]
            index = end
        elif char == "\\" and index + 1 < len(pattern):
            index += 1
            out.append(re.escape(pattern[index]))
        else:
            out.append(re.escape(char))
        index += 1
    return re.compile("".join(out) + r"\Z")


@dataclass(frozen=True)
class DockerIgnore:
    """The patterns of a .dockerignore: ``ignored("a/b.py")`` as Docker decides it.

    As in Docker: patterns are relative to the context's root (``*.pyc`` matches only at the
    top; ``**/*.pyc`` everywhere), a pattern that matches a directory excludes everything below
    it, ``!`` re-includes, and the last matching pattern wins.
    """

    rules: tuple[tuple[bool, re.Pattern[str]], ...]
    exceptions: tuple[str, ...] = ()  # the "!" patterns as written

    @classmethod
    def parse(cls, text: str) -> DockerIgnore:
        rules, exceptions = [], []
        for raw in text.splitlines():
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            negated = line.startswith("!")
            pattern = os.path.normpath(line.removeprefix("!").strip()).lstrip("/")
            rules.append((negated, _dockerignore_regex(pattern)))
            if negated:
                exceptions.append(pattern)
        return cls(tuple(rules), tuple(exceptions))

    def may_skip_folder(self, path: str) -> bool:
        """An ignored folder nothing inside of which an exception could bring back."""
        return self.ignored(path) and not any(
            re.search(r"[*?\[]", pattern) or pattern.startswith(path + "/")
            for pattern in self.exceptions
        )

    def ignored(self, path: str) -> bool:
        parts = path.split("/")
        prefixes = ["/".join(parts[: count + 1]) for count in range(len(parts))]
        ignored = False
        for negated, regex in self.rules:
            if any(regex.match(prefix) for prefix in prefixes):
                ignored = not negated
        return ignored


def context_files(context: Path, dockerignore: DockerIgnore) -> list[str]:
    """Every file of the build context Docker would send (paths relative to the context)."""
    files = []
    for directory, dirnames, filenames in os.walk(context):
        relative_dir = Path(directory).relative_to(context).as_posix()
        prefix = "" if relative_dir == "." else relative_dir + "/"
        dirnames[:] = [d for d in dirnames if not dockerignore.may_skip_folder(prefix + d)]
        for name in filenames:
            if not dockerignore.ignored(prefix + name):
                files.append(prefix + name)
    return sorted(files)


# --- the Dockerfile -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Instruction:
    keyword: str
    arguments: str

    @property
    def exec_form(self) -> list[str] | None:
        text = self.arguments.strip()
        if text.startswith("["):
            with contextlib.suppress(json.JSONDecodeError):
                return json.loads(text)
        return None


def dockerfile_instructions(text: str) -> list[Instruction]:
    """The instructions of a Dockerfile: comments dropped, ``\\`` continuations joined."""
    instructions = []
    pending = ""
    for raw in text.splitlines():
        stripped = raw.strip()
        if stripped.startswith("#") or (not stripped and pending):
            continue  # a comment or blank line inside a continued instruction is dropped too
        if not stripped:
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1].rstrip() + " "
            continue
        line = pending + stripped
        pending = ""
        keyword, _, arguments = line.partition(" ")
        instructions.append(Instruction(keyword.upper(), arguments.strip()))
    assert not pending, "Dockerfile ends inside a continued line"
    return instructions


def _expand(value: str, env: dict[str, str]) -> str:
    """Dockerfile variable substitution: ``$VAR`` and ``${VAR}``."""
    return re.sub(r"\$(?:\{(\w+)\}|(\w+))", lambda m: env.get(m.group(1) or m.group(2), ""), value)


def _env_pairs(arguments: str) -> list[tuple[str, str]]:
    words = shlex.split(arguments)
    if words and "=" not in words[0]:  # legacy form: ENV KEY value with spaces
        return [(words[0], arguments.split(None, 1)[1] if len(words) > 1 else "")]
    return [tuple(word.split("=", 1)) for word in words]  # type: ignore[misc]


# What the build changes in a RUN step, and why. Each is (the step's words, what is done).
RUN_ADAPTATIONS = {
    # pip's cache is left on in the test so the fresh virtualenv installs from it in seconds;
    # the image leaves it off only to stay small. What gets installed is the same.
    "--no-cache-dir": "dropped",
    # Users and file owners are not simulated: the test runs as one user. That the services
    # write nothing into the application folder, which is what a root-owned /app needs, is
    # checked by the test itself.
    "useradd": "skipped",
    "groupadd": "skipped",
    "chown": "skipped",
    # System packages of the base image (the certificate's font) come from the host here:
    # .ci/run installs them with apt; the test must not change the host's packages or delete
    # its apt lists (the "rm -rf /var/lib/apt/lists/*" that keeps the image small).
    "apt-get": "skipped",
    "rm": "skipped",
}


def _run_adapted(command: str) -> tuple[str, list[str]]:
    """The shell command as the test runs it, and the parts it skipped."""
    kept, skipped = [], []
    for part in command.split("&&"):
        words = shlex.split(part)
        if words and RUN_ADAPTATIONS.get(words[0]) == "skipped":
            skipped.append(part.strip())
            continue
        kept.append(part.replace(" --no-cache-dir", ""))
    return "&&".join(kept), skipped


# Host variables a build step keeps: how this machine reaches the package registry (pip's
# settings, proxies, CA bundles) stands in for the network of a docker build.
BUILD_PASSTHROUGH = re.compile(
    r"^(PIP_\w+|\w*_proxy|\w*_PROXY|SSL_CERT_\w+|REQUESTS_CA_BUNDLE|LANG)$"
)


def translate_paths(env: dict[str, str], mapping: dict[str, Path]) -> dict[str, str]:
    """Values that name image paths (``/app/x``, also inside ``a:b`` lists) as host paths."""

    def translate(item: str) -> str:
        for image_path, host_path in mapping.items():
            if item == image_path or item.startswith(image_path + "/"):
                return str(host_path) + item[len(image_path) :]
        return item

    return {
        key: os.pathsep.join(translate(item) for item in value.split(os.pathsep))
        for key, value in env.items()
    }


@dataclass
class Image:
    """An image file system: ``root`` stands for ``/``; ``python_bin`` for the base image's
    Python (a virtualenv); ``env`` (with image paths), ``workdir``, ``user`` and ``cmd`` as the
    Dockerfile left them."""

    root: Path
    python_bin: Path
    env: dict[str, str]
    workdir: str
    cmd: list[str] | None = None
    user: str | None = None
    exposed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    run_seconds: list[tuple[str, float]] = field(default_factory=list)

    def path(self, image_path: str) -> Path:
        """The host path of an absolute image path (``/app`` → ``<root>/app``)."""
        return self.root / image_path.lstrip("/")

    @property
    def app_dir(self) -> Path:
        return self.path(self.workdir)

    @property
    def system_paths(self) -> dict[str, Path]:
        """Image paths outside the application folder that exist on the host under root."""
        return {"/usr/local": self.root / "usr" / "local", "/root": self.root / "root"}

    def container(self, name: str) -> Container:
        """A container of the image: its own copy of the application folder and its own
        ``/tmp`` (what one container writes there, another never sees, as with Docker). The
        Python installation is shared; nothing writes there at run time."""
        base = self.root.parent / "containers" / name
        app_dir = base / self.workdir.lstrip("/")
        shutil.copytree(self.app_dir, app_dir, symlinks=True)
        (base / "tmp").mkdir()
        (base / "home").mkdir()  # the image user's home (gunicorn keeps its control socket there)
        mapping = {
            **self.system_paths,
            self.workdir: app_dir,
            "/tmp": base / "tmp",
            "/root": base / "home",
        }
        return Container(name, app_dir, mapping, dict(self.env))


@dataclass(frozen=True)
class Container:
    name: str
    app_dir: Path  # the container's WORKDIR
    mapping: dict[str, Path]  # image path → host path
    image_env: dict[str, str]  # the image's ENV, with image paths

    def host_env(self, env: dict[str, str]) -> dict[str, str]:
        """An environment with image paths (translated once: host paths may look alike)."""
        return translate_paths(env, self.mapping)


def image_build(context: Path, root: Path, *, pip_cache: Path | None = None, log=print) -> Image:
    """Build ``context``'s Dockerfile into ``root`` (see the module docstring)."""
    instructions = dockerfile_instructions((context / "Dockerfile").read_text(encoding="utf-8"))
    dockerignore_file = context / ".dockerignore"
    dockerignore = DockerIgnore.parse(
        dockerignore_file.read_text(encoding="utf-8") if dockerignore_file.is_file() else ""
    )
    python_prefix = root / "usr" / "local"
    image = Image(root=root, python_bin=python_prefix / "bin", env={}, workdir="/")
    # The base image's PATH and HOME: its Python (/usr/local) first.
    image.env["PATH"] = os.pathsep.join(["/usr/local/bin", "/usr/bin", "/bin"])
    image.env["HOME"] = "/root"
    (root / "root").mkdir(parents=True, exist_ok=True)
    build_env = {k: v for k, v in os.environ.items() if BUILD_PASSTHROUGH.match(k)}
    build_env["PIP_CACHE_DIR"] = str(pip_cache or Path.home() / ".cache" / "pip")

    for instruction in instructions:
        keyword, arguments = instruction.keyword, instruction.arguments
        if keyword == "FROM":
            assert arguments.startswith("python:3.11"), f"this stand-in is Python 3.11: {arguments}"
            subprocess.run([sys.executable, "-m", "venv", str(python_prefix)], check=True)
        elif keyword == "ENV":
            for key, value in _env_pairs(arguments):
                image.env[key] = _expand(value, image.env)
        elif keyword == "WORKDIR":
            workdir = _expand(arguments, image.env)
            image.workdir = workdir if workdir.startswith("/") else f"{image.workdir}/{workdir}"
            image.app_dir.mkdir(parents=True, exist_ok=True)
        elif keyword == "COPY":
            words = [w for w in shlex.split(arguments) if not w.startswith("--")]
            *sources, destination = words
            target = image.path(
                destination if destination.startswith("/") else f"{image.workdir}/{destination}"
            )
            files = context_files(context, dockerignore)
            for source in sources:
                source = os.path.normpath(source)
                if (context / source).is_dir():
                    prefix = "" if source == "." else source + "/"
                    chosen = [(f, f[len(prefix) :]) for f in files if f.startswith(prefix)]
                else:
                    assert source in files, f"COPY {source}: not in the build context"
                    name = Path(source).name if destination.endswith("/") else ""
                    chosen = [(source, name)]
                for relative, inside in chosen:
                    out = target / inside if inside else target
                    out.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(context / relative, out)
        elif keyword == "RUN":
            assert instruction.exec_form is None, "RUN in exec form is not supported here"
            command, skipped = _run_adapted(arguments)
            image.skipped += skipped
            if not command.strip():
                continue
            mapping = {**image.system_paths, image.workdir: image.app_dir}
            env = {**build_env, **translate_paths(image.env, mapping)}
            started = time.monotonic()
            log(f"RUN {command}")
            result = subprocess.run(
                ["sh", "-c", command],
                cwd=image.app_dir,
                env=env,
                capture_output=True,
                text=True,
            )
            image.run_seconds.append((command, time.monotonic() - started))
            assert result.returncode == 0, (
                f"RUN {command} failed ({result.returncode}):\n"
                f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
            )
        elif keyword == "USER":
            image.user = arguments
        elif keyword == "EXPOSE":
            image.exposed += arguments.split()
        elif keyword == "CMD":
            image.cmd = instruction.exec_form or shlex.split(arguments)
        else:
            raise AssertionError(f"Dockerfile instruction {keyword} is not simulated here")
    return image


# --- docker-compose.yml -------------------------------------------------------------------------


def dotenv_read(text: str) -> dict[str, str]:
    """KEY=VALUE lines as compose reads an env file (comments and blank lines skipped, one
    pair of surrounding quotes removed)."""
    values = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, value = line.split("=", 1)
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        values[key.strip()] = value
    return values


def compose_interpolate(value: str, variables: dict[str, str]) -> str:
    """``${VAR}``, ``${VAR:?message}`` (fails when unset or empty), ``${VAR:-default}``, ``$$``."""

    def replace(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name, operator, argument = match.group(1), match.group(2), match.group(3)
        current = variables.get(name, "")
        if operator == ":?" and not current:
            raise AssertionError(f"compose: {name} is required: {argument}")
        if operator == ":-" and not current:
            return argument
        return current

    return re.sub(r"\$\$|\$\{(\w+)(?:(:\?|:-)([^}]*))?\}", replace, value)


def service_command(service: dict, variables: dict[str, str]) -> list[str]:
    command = service["command"]
    if isinstance(command, str):
        return shlex.split(compose_interpolate(command, variables))
    return [compose_interpolate(word, variables) for word in command]


def service_environment(
    container: Container, service: dict, project_dir: Path, variables: dict[str, str]
) -> dict[str, str]:
    """The environment a service's container gets: image ENV < env_file < environment (image
    paths in the values translated to the container's folders)."""
    env = dict(container.image_env)
    env_files = service.get("env_file", [])
    for name in [env_files] if isinstance(env_files, str) else env_files:
        env.update(dotenv_read((project_dir / name).read_text(encoding="utf-8")))
    environment = service.get("environment", {})
    if isinstance(environment, list):
        environment = dict(item.split("=", 1) for item in environment)
    env.update({k: compose_interpolate(str(v), variables) for k, v in environment.items()})
    return container.host_env(env)


# --- processes ----------------------------------------------------------------------------------


class Process:
    """A service's process in its own process group (so its children stop with it), its output
    in a log file."""

    def __init__(self, name: str, args: list[str], env: dict, cwd: Path, logs: Path) -> None:
        self.name = name
        self.log = logs / f"{name}.log"
        self._file = self.log.open("wb")
        self.popen = subprocess.Popen(
            args,
            env=env,
            cwd=cwd,
            stdout=self._file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def tail(self, lines: int = 40) -> str:
        return f"--- {self.name} ---\n" + "\n".join(self.text().splitlines()[-lines:])

    def wait_for(self, predicate, *, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(self.text()):
                return
            if self.popen.poll() is not None:
                break
            time.sleep(0.2)
        raise AssertionError(f"{self.name}: no {what} (exit {self.popen.poll()})\n{self.tail()}")

    def stop(self, timeout: float = 20) -> None:
        """SIGTERM to the process group (as ``docker stop``), SIGKILL if it does not end."""
        if self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, signal.SIGTERM)
            try:
                self.popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.popen.pid, signal.SIGKILL)
                self.popen.wait(timeout=timeout)
        # Children that outlived their parent (a prefork worker's pool) are in the same group.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        self._file.close()
