-- 0003 results_recorded_by: which League Manager process wrote each result's row. A commit
-- whose reply was lost (the connection cut after the server committed) is tried again and
-- finds its own row: the marker tells that row from one another League Manager kept first,
-- so a result is never taken for a duplicate of itself. Null for rows written before it
-- (and by `league store export`, which no League Manager process writes).
alter table results add column recorded_by text;
