"""A real OpenID Connect provider for the tests: Debian's LemonLDAP::NG portal (package
``liblemonldap-ng-portal-perl``) served by Plack's own HTTP server (``plackup``, package
``libplack-perl``), on a configuration written into a temporary folder: the file configuration
backend, the Demo users (dwho, rtyler, msmith; each one's password is the user name), an RS256
signing key made with ``openssl`` now, and one relying party, Lernpfad.

The claims Lernpfad gets come from macros over the Demo user: ``sub`` is the user name,
``email`` is ``<uid>@<mail_domain>``. ``mail_domain_change`` writes a new configuration
(LemonLDAP::NG reads it on the next request), as an operator changes an address at the
provider."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from tests.helpers.ports import free_port

PORTAL_HTDOCS = Path("/usr/share/lemonldap-ng/portal/htdocs")
PORTAL_TEMPLATES = Path("/usr/share/lemonldap-ng/portal/templates")
JAVASCRIPT = Path("/usr/share/javascript")
RELYING_PARTY = "lernpfad"
# The Demo user database's accounts (Lemonldap::NG::Portal::UserDB::Demo): password = user name.
DEMO_USERS = {"dwho": "Doctor Who", "rtyler": "Rose Tyler", "msmith": "Mickey Smith"}

# Modules the portal loads that its package only recommends (apt-get install
# libstring-random-perl libdigest-hmac-perl libcrypt-openssl-bignum-perl libio-string-perl
# libgd-securityimage-perl libgd-perl libimage-magick-perl): without one, it does not start.
PERL_MODULES = (
    "String::Random", "Digest::HMAC", "Crypt::OpenSSL::Bignum", "IO::String", "GD",
    "Image::Magick", "Plack::App::File",
)  # fmt: skip

# The portal under Plack: its static files (and Debian's shared JavaScript) beside the
# application, as Debian's nginx site does (/etc/lemonldap-ng/portal-nginx.conf).
_APP_PSGI = f"""\
use strict;
use Plack::Builder;
use Plack::App::File;
use Lemonldap::NG::Portal::Main;

my $portal = Lemonldap::NG::Portal::Main->run({{}});
builder {{
    mount "/static" => Plack::App::File->new(root => "{PORTAL_HTDOCS}/static")->to_app;
    mount "/javascript" => Plack::App::File->new(root => "{JAVASCRIPT}")->to_app;
    mount "/" => $portal;
}};
"""


def missing_reason() -> str | None:
    """Why the provider cannot run here (None: it can)."""
    if shutil.which("plackup") is None:
        return "needs Plack (apt-get install libplack-perl)"
    if not (PORTAL_HTDOCS / "index.psgi").is_file():
        return (
            "needs LemonLDAP::NG's portal (apt-get install liblemonldap-ng-portal-perl "
            "lemonldap-ng-fastcgi-server)"
        )
    if shutil.which("openssl") is None:
        return "needs openssl"
    for module in PERL_MODULES:
        if subprocess.run(["perl", f"-M{module}", "-e1"], capture_output=True).returncode:
            return f"needs the Perl module {module} for LemonLDAP::NG (see .ci/run)"
    return None


@dataclass
class OidcProvider:
    base_url: str
    process: subprocess.Popen
    folder: Path
    client_id: str
    client_secret: str
    config: dict = field(repr=False)

    @property
    def issuer(self) -> str:
        """The issuer, as the discovery document names it (no trailing slash)."""
        return self.base_url

    def log(self) -> str:
        path = self.folder / "server.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def mail_domain_change(self, domain: str) -> None:
        """From the next log-in on, the provider asserts ``<uid>@<domain>``: a new
        configuration (the next number), which the portal reads within a second."""
        number = self.config["cfgNum"] + 1
        self.config = {**self.config, "cfgNum": number, "cfgDate": str(int(time.time()))}
        self.config["macros"] = {**self.config["macros"], "lp_mail": _mail_macro(domain)}
        _config_write(self.folder, self.config)
        # The portal compares the configuration's number at most once a second (checkTime).
        time.sleep(1.5)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def _mail_macro(domain: str) -> str:
    # Single quotes: in Perl's double quotes "@uni" would be an array.
    return f"$uid . '@{domain}'"


def _config_write(folder: Path, config: dict) -> None:
    path = folder / "conf" / f"lmConf-{config['cfgNum']}.json"
    path.write_text(json.dumps(config, indent=1))


def oidc_provider_start(
    folder: Path,
    *,
    redirect_uri: str,
    client_id: str = "lernpfad-test",
    client_secret: str = "lernpfad-test-secret",
    mail_domain: str = "uni-x.example",
) -> OidcProvider:
    """Write the configuration into ``folder`` and start the portal; ``redirect_uri``: the
    relying party's callback (the only one it accepts)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    for name in ("conf", "sessions/lock", "psessions/lock", "cache", "key"):
        (folder / name).mkdir(parents=True, exist_ok=True)
    key, public = folder / "key" / "signing.key", folder / "key" / "signing.pub"
    subprocess.run(
        ["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048",
         "-out", str(key)],
        check=True, capture_output=True,
    )  # fmt: skip
    subprocess.run(
        ["openssl", "pkey", "-in", str(key), "-pubout", "-out", str(public)],
        check=True,
        capture_output=True,
    )
    cache = {
        "namespace": "lemonldap-ng-sessions",
        "default_expires_in": 600,
        "directory_umask": "007",
        "cache_root": str(folder / "cache"),
        "cache_depth": 3,
    }
    config = {
        "cfgNum": 1,
        "cfgAuthor": "Lernpfad tests",
        "cfgDate": str(int(time.time())),
        "cfgVersion": "2.16.1",
        "portal": f"{base}/",
        "domain": "127.0.0.1",
        "cookieName": "llngtest",
        "securedCookie": 0,
        "authentication": "Demo",
        "userDB": "Same",
        "passwordDB": "Demo",
        "registerDB": "Null",
        "demoExportedVars": {"cn": "cn", "mail": "mail", "uid": "uid"},
        "exportedVars": {},
        "whatToTrace": "uid",
        "macros": {
            "lp_given": "(split(/ /, $cn))[0]",
            "lp_family": "(split(/ /, $cn, 2))[1]",
            "lp_mail": _mail_macro(mail_domain),
        },
        "groups": {},
        "locationRules": {},
        "globalStorage": "Apache::Session::File",
        "globalStorageOptions": {
            "Directory": str(folder / "sessions"),
            "LockDirectory": str(folder / "sessions" / "lock"),
            "generateModule": "Lemonldap::NG::Common::Apache::Session::Generate::SHA256",
        },
        "persistentStorage": "Apache::Session::File",
        "persistentStorageOptions": {
            "Directory": str(folder / "psessions"),
            "LockDirectory": str(folder / "psessions" / "lock"),
        },
        "localSessionStorage": "Cache::FileCache",
        "localSessionStorageOptions": cache,
        "notification": 0,
        "loginHistoryEnabled": 0,
        "portalSkin": "bootstrap",
        # Only the log-in form: no sign-up, no password reset, no "check my last logins".
        "portalDisplayRegister": 0,
        "portalDisplayResetPassword": 0,
        "portalCheckLogins": 0,
        "timeout": 3600,
        "issuerDBOpenIDConnectActivation": 1,
        "oidcServicePrivateKeySig": key.read_text(),
        "oidcServicePublicKeySig": public.read_text(),
        "oidcServiceKeyIdSig": "lernpfad-test",
        "oidcServiceAllowAuthorizationCodeFlow": 1,
        "oidcServiceMetaDataIssuer": base,
        "oidcRPMetaDataOptions": {
            RELYING_PARTY: {
                "oidcRPMetaDataOptionsDisplayName": "Lernpfad",
                "oidcRPMetaDataOptionsClientID": client_id,
                "oidcRPMetaDataOptionsClientSecret": client_secret,
                "oidcRPMetaDataOptionsRedirectUris": redirect_uri,
                "oidcRPMetaDataOptionsIDTokenSignAlg": "RS256",
                "oidcRPMetaDataOptionsUserIDAttr": "uid",
                "oidcRPMetaDataOptionsBypassConsent": 0,
                "oidcRPMetaDataOptionsIDTokenForceClaims": 1,
            }
        },
        "oidcRPMetaDataExportedVars": {
            RELYING_PARTY: {
                "email": "lp_mail",
                "name": "cn",
                "given_name": "lp_given",
                "family_name": "lp_family",
                "preferred_username": "uid",
            }
        },
    }
    _config_write(folder, config)
    (folder / "lemonldap-ng.ini").write_text(
        "[all]\nlogLevel = notice\ncheckTime = 1\n"
        f"[configuration]\ntype = File\ndirName = {folder / 'conf'}\n"
        f"localStorage = Cache::FileCache\nlocalStorageOptions = {{ 'namespace' => "
        f"'lemonldap-ng-config', 'default_expires_in' => 1, 'cache_root' => "
        f"'{folder / 'cache'}' }}\n"
        f"[portal]\nstaticPrefix = /static\ntemplateDir = {PORTAL_TEMPLATES}\n"
        "languages = de, en\n"
    )
    (folder / "app.psgi").write_text(_APP_PSGI)
    env = {**os.environ, "LLNG_DEFAULTCONFFILE": str(folder / "lemonldap-ng.ini")}
    log = (folder / "server.log").open("wb")
    process = subprocess.Popen(
        ["plackup", "-E", "deployment", "-s", "HTTP::Server::PSGI",
         "--host", "127.0.0.1", "--port", str(port), str(folder / "app.psgi")],
        env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    provider = OidcProvider(
        base_url=base,
        process=process,
        folder=folder,
        client_id=client_id,
        client_secret=client_secret,
        config=config,
    )
    discovery = f"{base}/.well-known/openid-configuration"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(discovery, timeout=2) as response:
                if response.status == 200:
                    return provider
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            provider.stop()
            raise RuntimeError(f"LemonLDAP::NG did not start:\n{provider.log()[:4000]}")
        time.sleep(0.2)
