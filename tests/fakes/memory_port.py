"""The alert action's port (ingest_doctor.alert.action.Port) in memory, for the benches and tests: no network,
a dict for the KV store, a count of the events written. tests/gates/test_fakes_bench.py keeps it
in step with the port it stands in for."""


from ingest_doctor.delivery.holds import Holds


class MemoryPort:
    def __init__(self):
        self.kv = {}
        self.events = 0

    def macros(self):
        return {}

    def latest_configs(self, hosts):
        return {h: {"parallel_ingestion_pipelines": 4, "dedicated_io_threads": 2} for h in hosts}

    def local_config(self, host, evidence):
        return False

    def kv_read(self, keys):
        return {k: self.kv[k] for k in keys if k in self.kv}

    def kv_save(self, records):
        for r in records:
            self.kv[r["_key"]] = r

    def write_events(self, index, host, bodies):
        self.events += len(bodies)

    def webhook(self, url, body):
        pass

    def kv_pending(self, search_name):
        return {k: r for k, r in self.kv.items()
                if r.get("delivery") == "pending" and r.get("delivery_search") == search_name}

    def store_lock(self, owner):
        pass

    def store_unlock(self, owner):
        pass

    def messages_shown(self):
        return {}

    def post_messages(self, plan):
        self.messages = plan

    def stored_webhook_url(self):
        return None

    def holds(self, now):
        return Holds()

    def end_acks(self, acks, now, why):
        pass

    def log(self, *a, **k):
        pass
