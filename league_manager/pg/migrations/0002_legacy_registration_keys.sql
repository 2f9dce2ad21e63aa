-- 0002 legacy_registration_keys: an agent registered before the League Manager kept the
-- digest of each registration's idempotency key has none (secrets.json without
-- registration_keys, which registry_files.py still reads): its retries are told to send
-- their token. A league moved from such files keeps those agents, with no key.
alter table agent_secrets alter column registration_key drop not null;
