"""What the ports' tests share: a notifier reading the add-on's Webhook tab from a fake splunkd."""
import functools
import ssl

import pytest

from fakes.instance import SESSION_KEY
from ingest_doctor_ports import notifier as notifier_mod, webhook
from ingest_doctor_ports.splunkd import Http, unverified


@pytest.fixture
def make_notifier(tls, tmp_path):
    """make(fake, port_timeout=5.0): the notifier of host hf-01 (its outbox in tmp_path) reading the settings
    from `fake` over the splunkd port with the session key, posting through the one webhook client, which
    trusts the test CA. Each notifier made is closed when the test ends (closing again is harmless)."""
    post = functools.partial(webhook.post, context=ssl.create_default_context(cafile=tls[0]))
    made = []

    def make(fake, port_timeout=5.0):
        http = Http(port_timeout, {"splunkd": unverified()})
        made.append(notifier_mod.Notifier(str(tmp_path), "hf-01",
                                          notifier_mod.settings_reader(http, fake.url, SESSION_KEY), post))
        return made[-1]
    yield make
    for n in made:
        n.close()
