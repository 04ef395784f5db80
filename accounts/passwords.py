"""Password strength: zxcvbn, taught the words German passwords are built from
(``GERMAN_PASSWORD_WORDS``); our messages, then zxcvbn's warning and advice."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django_zxcvbn_password_validator import ZxcvbnPasswordValidator
from django_zxcvbn_password_validator.translate_zxcvbn_text import translate_zxcvbn_text
from zxcvbn.matching import RANKED_DICTIONARIES, add_frequency_lists

# zxcvbn refuses longer input; a longer passphrase is at least as hard as its beginning.
ZXCVBN_MAX_LENGTH = 72

GERMAN_PASSWORD_WORDS = (
    # the word itself, greetings and love
    "passwort", "kennwort", "hallo", "geheim", "schatz", "schatzi", "liebe", "ichliebedich",
    "liebling", "mausi", "maus", "hase", "hasi", "engel", "baerchen", "bärchen", "prinzessin",
    "willkommen", "zugang", "sicher", "sicherheit", "passwort1", "hallo123", "lieblings",
    # seasons, months, days
    "sommer", "winter", "herbst", "fruehling", "frühling", "januar", "februar", "maerz", "märz",
    "april", "mai", "juni", "juli", "august", "september", "oktober", "november", "dezember",
    "montag", "dienstag", "mittwoch", "donnerstag", "freitag", "samstag", "sonntag",
    "weihnachten", "ostern", "geburtstag", "urlaub", "ferien",
    # football and sport
    "fussball", "fußball", "bayern", "fcbayern", "schalke", "schalke04", "dortmund", "borussia",
    "bvb09", "werder", "hertha", "eintracht", "fortuna", "union", "hsv", "handball",
    # places
    "deutschland", "berlin", "hamburg", "muenchen", "münchen", "koeln", "köln", "frankfurt",
    "stuttgart", "dresden", "leipzig", "hannover", "bremen", "wien", "zuerich", "zürich",
    "oesterreich", "österreich", "schweiz", "heimat",
    # keyboard rows of a German keyboard (zxcvbn knows only qwerty and dvorak)
    "qwertz", "qwertzu", "qwertzui", "qwertzuiop", "asdfgh", "asdfghjkl", "yxcvbn", "yxcvbnm",
    "ysxdcfvgbhnjmk", "qaywsx", "ztrewq",
    # things, animals, nature
    "sonne", "mond", "sterne", "stern", "himmel", "blume", "blumen", "rose", "katze", "kater",
    "hund", "hunde", "pferd", "vogel", "tiger", "drache", "schmetterling", "regenbogen",
    "schokolade", "kaffee", "bier", "auto", "computer", "internet", "musik", "gitarre",
    "zauberer", "zauber", "glueck", "glück", "gluecklich", "freiheit", "frieden", "familie",
    "kinder", "mama", "papa", "oma", "opa", "mutter", "vater", "bruder", "schwester",
    "freund", "freundin", "arbeit", "schule", "lernen", "student", "lehrer", "anfang",
    "gott", "jesus", "teufel", "hexe", "ritter", "koenig", "könig", "kaiser", "meister",
    # common German first names not in zxcvbn's lists
    "jürgen", "juergen", "günter", "guenter", "dieter", "uwe", "horst", "klaus", "wolfgang",
    "manfred", "helmut", "stefan", "andreas", "matthias", "tobias", "florian", "sebastian",
    "lukas", "jonas", "leon", "finn", "maximilian", "sabine", "petra", "ursula", "monika",
    "gabi", "birgit", "jutta", "anja", "katrin", "kathrin", "silke", "sandra", "nicole",
    "stefanie", "jessica", "sophie", "lena", "hannah", "lea", "mia", "emilia",
    # swear words common in leaked German passwords
    "ficken", "scheisse", "scheiße", "arschloch",
)  # fmt: skip

# A ranked dictionary beside zxcvbn's own; add_frequency_lists is zxcvbn's way to add one.
GERMAN = "german_passwords"
if GERMAN not in RANKED_DICTIONARIES:
    add_frequency_lists({GERMAN: GERMAN_PASSWORD_WORDS})


def _sentence(text: str) -> str:
    # zxcvbn's texts and their translations end with a full stop, or not.
    return text if text.endswith((".", "!", "?")) else f"{text}."


class PasswordStrengthValidator(ZxcvbnPasswordValidator):
    """Refuses a password zxcvbn scores below ``PASSWORD_MINIMAL_STRENGTH`` (0–4; 3: about
    10^8 guesses or more), German passwords included; the messages say why and what helps."""

    def validate(self, password: str, user=None) -> None:
        result = self._run_zxcvbn(password[:ZXCVBN_MAX_LENGTH], user)
        if result["score"] >= self.password_minimal_strength:
            return
        # One message: what is wrong, then zxcvbn's why and what helps.
        feedback = result["feedback"]
        hints = [feedback["warning"], *feedback["suggestions"]]
        sentences = [_sentence(str(translate_zxcvbn_text(hint))) for hint in hints if hint]
        if any(match.get("dictionary_name") == GERMAN for match in result["sequence"]):
            # zxcvbn has no warning of its own for a dictionary it does not ship.
            sentences.insert(0, _("It is built on a word common in German passwords."))
        if not sentences:
            sentences = [_("Add another word or two. Uncommon words are better.")]
        raise ValidationError(
            " ".join([_("This password is too easy to guess."), *sentences]),
            code="password_too_guessable",
        )

    def get_help_text(self) -> str:
        return _(
            "Not easy to guess: a few uncommon words beat a common word with digits and a "
            "symbol (Sommer2026! is guessed quickly)."
        )
