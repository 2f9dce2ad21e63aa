-- 0005 agents_commit_order: the transaction that last wrote each agent's row (its
-- registration, then each change of its state), so that a League Manager asks for the agents
-- the others registered or changed since it last looked, in commit order, missing none: as
-- for the results (0004), every transaction older than a snapshot's xmin has ended, so the
-- rows last written by transactions in [last xmin, this xmin) are read once each.
alter table agents add column xact xid8 not null default pg_current_xact_id();
create index agents_in_commit_order on agents (league_id, xact);
