"""A real SAML identity provider for the tests: Debian's SimpleSAMLphp (package
``simplesamlphp``) served by PHP's built-in web server, on a configuration written into a
temporary folder: its users (``exampleauth:UserPass``), a signing key made with ``openssl`` now,
and our service provider's metadata. Attributes go out under their OIDs, as in DFN-AAI."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from tests.helpers.ports import free_port

SIMPLESAMLPHP_WWW = Path("/usr/share/simplesamlphp/www")
ATTRIBUTE_MAPS = Path("/usr/share/simplesamlphp/attributemap")
if not ATTRIBUTE_MAPS.is_dir():
    ATTRIBUTE_MAPS = Path("/etc/simplesamlphp/attributemap")

# The attributes' OIDs (eduPerson and inetOrgPerson), as the SocialApp maps them.
EPPN = "urn:oid:1.3.6.1.4.1.5923.1.1.1.6"
MAIL = "urn:oid:0.9.2342.19200300.100.1.3"
GIVEN_NAME = "urn:oid:2.5.4.42"
SURNAME = "urn:oid:2.5.4.4"


def missing_reason() -> str | None:
    """Why the IdP cannot run here (None: it can)."""
    if shutil.which("php") is None:
        return "needs PHP's CLI (apt-get install php-cli php-xml)"
    if not (SIMPLESAMLPHP_WWW / "_include.php").is_file():
        return "needs SimpleSAMLphp (apt-get install simplesamlphp)"
    if shutil.which("openssl") is None:
        return "needs openssl"
    return None


@dataclass
class SamlIdp:
    base_url: str
    process: subprocess.Popen
    folder: Path

    @property
    def entity_id(self) -> str:
        return f"{self.base_url}/saml2/idp/metadata.php"

    @property
    def certificate(self) -> str:
        return (self.folder / "cert" / "idp.crt").read_text()

    def log(self) -> str:
        path = self.folder / "server.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def _php(value) -> str:
    """A PHP literal for a str, bool, list or dict (the config files are PHP)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if isinstance(value, list):
        return "[" + ", ".join(_php(item) for item in value) + "]"
    if isinstance(value, dict):
        return "[" + ", ".join(f"{_php(k)} => {_php(v)}" for k, v in value.items()) + "]"
    raise TypeError(value)


def saml_idp_start(
    folder: Path, *, sp_entity_id: str, sp_acs_url: str, users: dict[str, dict]
) -> SamlIdp:
    """Write the configuration into ``folder`` and start the IdP; ``users``: password and
    attributes (friendly names: eduPersonPrincipalName, mail, givenName, sn) per user name."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    for name in ("config", "cert", "metadata", "log", "data", "tmp", "sessions"):
        (folder / name).mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
            "-subj", "/CN=lernpfad-test-idp",
            "-keyout", str(folder / "cert" / "idp.key"),
            "-out", str(folder / "cert" / "idp.crt"),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    config = {
        "baseurlpath": f"{base}/",
        "certdir": f"{folder}/cert/",
        "loggingdir": f"{folder}/log/",
        "datadir": f"{folder}/data/",
        "tempdir": f"{folder}/tmp/",
        "metadatadir": f"{folder}/metadata/",
        "attributenamemapdir": f"{ATTRIBUTE_MAPS}/",
        "technicalcontact_name": "Lernpfad tests",
        "technicalcontact_email": "tests@lernpfad.invalid",
        "secretsalt": secrets.token_hex(16),
        "auth.adminpassword": secrets.token_hex(16),
        "timezone": "UTC",
        "logging.handler": "file",
        "enable.saml20-idp": True,
        "module.enable": {"exampleauth": True, "core": True, "saml": True, "admin": True},
        "store.type": "phpsession",
        "session.cookie.secure": False,
        "session.phpsession.savepath": f"{folder}/sessions",
        "language.default": "en",
    }
    (folder / "config" / "config.php").write_text(f"<?php\n$config = {_php(config)};\n")
    accounts = {
        f"{name}:{user['password']}": {
            key: [value] for key, value in user.items() if key != "password"
        }
        for name, user in users.items()
    }
    # exampleauth's users sit beside the module name in the same array, keyed by "user:pass".
    sources_php = (
        "<?php\n$config = ['admin' => ['core:AdminPassword'], 'users' => array_merge("
        f"['exampleauth:UserPass'], {_php(accounts)})];\n"
    )
    (folder / "config" / "authsources.php").write_text(sources_php)
    (folder / "metadata" / "saml20-idp-hosted.php").write_text(
        "<?php\n$metadata['__DYNAMIC:1__'] = ["
        "'host' => '__DEFAULT__', 'privatekey' => 'idp.key', 'certificate' => 'idp.crt',"
        " 'auth' => 'users',"
        " 'attributes.NameFormat' => 'urn:oasis:names:tc:SAML:2.0:attrname-format:uri',"
        " 'authproc' => [100 => ['class' => 'core:AttributeMap', 'name2oid']]];\n"
    )
    (folder / "metadata" / "saml20-sp-remote.php").write_text(
        f"<?php\n$metadata[{_php(sp_entity_id)}] = ["
        f"'AssertionConsumerService' => {_php(sp_acs_url)},"
        " 'NameIDFormat' => 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient'];\n"
    )
    env = {**os.environ, "SIMPLESAMLPHP_CONFIG_DIR": str(folder / "config")}
    log = (folder / "server.log").open("wb")
    process = subprocess.Popen(
        ["php", "-S", f"127.0.0.1:{port}", "-t", str(SIMPLESAMLPHP_WWW)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    idp = SamlIdp(base_url=base, process=process, folder=folder)
    deadline = time.monotonic() + 20
    while True:
        try:
            with urllib.request.urlopen(idp.entity_id, timeout=2) as response:
                if response.status == 200:
                    return idp
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            idp.stop()
            raise RuntimeError(f"SimpleSAMLphp did not start:\n{idp.log()}")
        time.sleep(0.2)
