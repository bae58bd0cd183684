/**
 * bench/statesvc-feed: the change feed (docs/state.md "Change feed"), each number beside its
 * baseline in the same run — the fan-out of one write to 500 open streams (against 500 plain
 * GETs), and what recording the feed costs a Postgres write (against migration 0004's function).
 * The code lives with the other statesvc benches (bench/statesvc/change-feed*.ts);
 * `npm run bench -- statesvc-feed` runs it alone.
 */
import { runChangeFeedBench } from '../statesvc/change-feed.ts';
import { runChangeFeedWriteCost } from '../statesvc/change-feed-write-cost.ts';

await runChangeFeedBench();
await runChangeFeedWriteCost();
