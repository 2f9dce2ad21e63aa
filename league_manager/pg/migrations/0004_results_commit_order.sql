-- 0004 results_commit_order: the transaction that wrote each result, so that a League Manager
-- asks for the results the others kept since it last looked, in commit order, missing none:
-- a row numbered (seq) before another may commit after it, but every transaction older than
-- a snapshot's xmin has ended, so the rows written by transactions in [last xmin, this xmin)
-- are all there is of them, read once (pg_snapshot_xmin, pg_current_snapshot).
alter table results add column xact xid8 not null default pg_current_xact_id();
create index results_in_commit_order on results (league_id, xact);
