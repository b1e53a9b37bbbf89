import type { Clock } from '../clock.ts';
import type { Logger } from '../logger.ts';
import { reasonOf } from '../startup-error.ts';

/** At most one warning a minute while the database keeps refusing announcements. */
const WARN_EVERY_MS = 60_000;

/**
 * PostgreSQL: what to do when the database refuses a committed status change's announcement to the
 * other instances (docs/checkout.md#how-a-change-reaches-the-page-on-one-instance-or-many). Their
 * pages miss it until their streams reopen. Logged as a warning: the first refusal at once, then at
 * most one line a minute, each counting the refusals since the line before (`refused`).
 */
export function warnOfRefusedAnnouncements(logger: Logger, clock: Clock, everyMs = WARN_EVERY_MS) {
  let lastWarnedAt = Number.NEGATIVE_INFINITY;
  let refused = 0;
  return (error: unknown): void => {
    refused++;
    const now = clock.now();
    if (now - lastWarnedAt < everyMs) return;
    logger.warn(
      { reason: reasonOf(error), refused },
      'a status change was not announced to the other instances: their checkout pages show it when their streams reopen (within about 6 minutes)',
    );
    lastWarnedAt = now;
    refused = 0;
  };
}
