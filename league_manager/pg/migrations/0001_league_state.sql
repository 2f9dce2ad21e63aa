-- 0001 league_state: what a League Manager keeps in SHARED/data/leagues/<league_id>/ today,
-- for any number of leagues in one database (every table is keyed by league_id).
-- Real columns hold what queries and constraints need; jsonb holds what pydantic models
-- shape (a result's details). Standings have no table: they are counted from the results
-- in one transaction, so they cannot disagree with them.

-- A league: rounds.json's status and match size, and admin.json's pause switch.
create table leagues (
    league_id text primary key,
    status text not null default 'REGISTRATION'
        check (status in ('REGISTRATION', 'SCHEDULED', 'RUNNING', 'COMPLETED')),
    players_per_match int not null default 2 check (players_per_match >= 2),
    paused boolean not null default false,
    created_at timestamptz not null default now()
);

-- The admin token and the referee secret a League Manager made at a league's first start
-- where none is configured (the 0600 files admin_token and referee_secret): every League
-- Manager of the league must check the same ones.
create table league_secrets (
    league_id text primary key references leagues on delete cascade,
    admin_token text,
    referee_secret text
);

-- The registered referees and players (agents.json and registry.jsonl's registrations and
-- changes of state). registered_seq keeps registration order (the schedule is made from the
-- players in it). The unique keys hold across League Managers what agents.py checks in
-- memory: one name is one person per kind (sdk.identity.name_key), one server is one agent
-- (sdk.identity.canonical_endpoint).
create table agents (
    league_id text not null references leagues on delete cascade,
    agent_id text not null,
    registered_seq bigint generated always as identity,
    kind text not null check (kind in ('referee', 'player')),
    display_name text not null,
    name_key text not null,
    contact_endpoint text not null,
    endpoint_key text not null,
    version text not null,
    game_types text[] not null,
    max_concurrent_matches int not null default 1 check (max_concurrent_matches >= 1),
    state text not null default 'REGISTERED'
        check (state in ('INIT', 'REGISTERED', 'ACTIVE', 'SUSPENDED', 'SHUTDOWN', 'REMOVED')),
    -- Technical losses and missed notifications in a row (suspension.py counts them in
    -- memory): here every League Manager counts the same ones.
    failures_in_a_row int not null default 0 check (failures_in_a_row >= 0),
    registered_at timestamptz not null,
    primary key (league_id, agent_id),
    unique (league_id, kind, name_key),
    unique (league_id, endpoint_key)
);
create index agents_in_registration_order on agents (league_id, kind, registered_seq);

-- Each agent's token (the League Manager signs its proofs with it) and the digest of its
-- registration's idempotency key (secrets.json), apart from the public facts as in the files.
create table agent_secrets (
    league_id text not null,
    agent_id text not null,
    token text not null,
    registration_key text not null,
    primary key (league_id, agent_id),
    foreign key (league_id, agent_id) references agents on delete cascade
);

-- The players the schedule was made from, in order (rounds.json's players): the schedulers
-- are deterministic in them, so matches are computed from this, never listed in full.
create table schedule_players (
    league_id text not null references leagues on delete cascade,
    position int not null check (position >= 1),
    player_id text not null,
    display_name text not null,
    primary key (league_id, position),
    unique (league_id, player_id),
    foreign key (league_id, player_id) references agents
);

-- Every round's status and byes (rounds.json's rounds).
create table rounds (
    league_id text not null references leagues on delete cascade,
    round_id int not null check (round_id >= 1),
    status text not null default 'PENDING' check (status in ('PENDING', 'RUNNING', 'COMPLETED')),
    byes text[] not null default '{}',
    started_at timestamptz,
    completed_at timestamptz,
    primary key (league_id, round_id)
);

-- The matches of the rounds being played (rounds.json's live records, records.MatchProgress):
-- who holds each and under which assignment. A match of another round is made from the
-- schedule and its result, as with the files.
create table matches (
    league_id text not null,
    match_id text not null,
    round_id int not null,
    player_ids text[] not null check (cardinality(player_ids) >= 2),
    status text not null default 'PENDING'
        check (status in ('PENDING', 'ASSIGNED', 'RUNNING', 'COMPLETED')),
    referee_id text,
    referee_endpoint text,
    -- The number of the hand-over that holds the match now: only its report counts.
    assignment bigint,
    attempts int not null default 0 check (attempts >= 0),
    primary key (league_id, match_id),
    foreign key (league_id, round_id) references rounds on delete cascade,
    foreign key (league_id, referee_id) references agents
);

-- Every referee a match was ever given to (fencing.py): one of them reporting under an
-- older assignment is told it was superseded; any other referee is refused.
create table match_referees (
    league_id text not null,
    match_id text not null,
    referee_id text not null,
    primary key (league_id, match_id, referee_id),
    foreign key (league_id, match_id) references matches on delete cascade,
    foreign key (league_id, referee_id) references agents
);

-- Assignment numbers (assignments.py): each hand-over's is larger than any given before, by
-- any League Manager of any league. A sequence never gives a number twice, not even across a
-- crash, and no row is locked to take one (numbers unique in the database are unique in
-- each league).
create sequence assignment_numbers as bigint;

-- The accepted results (journal.jsonl, records.ResultRecord). The primary key makes a report
-- delivered to two League Managers count once (insert ... on conflict do nothing); seq is the
-- order in which results were accepted.
create table results (
    league_id text not null references leagues on delete cascade,
    match_id text not null,
    seq bigint generated always as identity,
    round_id int not null check (round_id >= 1),
    referee_id text not null,
    winner text,
    details jsonb not null default '{}',
    recorded_at timestamptz not null,
    primary key (league_id, match_id),
    foreign key (league_id, round_id) references rounds
);
create unique index results_in_order on results (league_id, seq);

-- Each player's outcome and points in a result (ResultRecord.outcomes and .points), in seat
-- order: standings and a player's results are queries over these rows.
create table result_outcomes (
    league_id text not null,
    match_id text not null,
    seat int not null check (seat >= 0),
    player_id text not null,
    outcome text not null check (outcome in ('WIN', 'DRAW', 'LOSS', 'TECHNICAL_LOSS')),
    points double precision not null,
    primary key (league_id, match_id, player_id),
    unique (league_id, match_id, seat),
    foreign key (league_id, match_id) references results on delete cascade
);
create index result_outcomes_by_player on result_outcomes (league_id, player_id);

-- The leader of a league's League Managers, the one that drives the rounds: holder keeps the
-- lease until expires_at and renews it; another takes it once it has expired, with term + 1,
-- so a deposed leader's writes can be told from the new one's.
create table leader_lease (
    league_id text primary key references leagues on delete cascade,
    holder text not null,
    term bigint not null check (term >= 1),
    expires_at timestamptz not null
);
