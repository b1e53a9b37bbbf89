import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Config } from '../config.ts';
import { createSealer, type Sealer } from './sealer.ts';

export interface MasterKeyResult {
  sealer: Sealer;
  /** Set in sandbox mode when no SNAPGATE_MASTER_KEY was given: the file the key lives in. */
  keyFile?: string;
  /** True when this start created that file. */
  generated?: boolean;
}

/** Where a sandbox gateway without SNAPGATE_MASTER_KEY keeps its key: `master.key` beside the database. */
export const masterKeyFileOf = (sqlitePath: string) => join(dirname(sqlitePath), 'master.key');

/**
 * The sealer from SNAPGATE_MASTER_KEY (and SNAPGATE_MASTER_KEY_PREVIOUS). Production mode cannot
 * start without one (loadConfig refuses). In sandbox mode, without one, a key is generated once
 * into `master.key` next to the SQLite database, readable by the gateway's user only, and reused
 * by every later start (and by every instance sharing that folder).
 */
export function loadMasterKey(
  config: Pick<Config, 'masterKey' | 'previousMasterKeys' | 'sqlitePath'>,
): MasterKeyResult {
  if (config.masterKey) return { sealer: createSealer(config.masterKey, config.previousMasterKeys) };
  const keyFile = masterKeyFileOf(config.sqlitePath);
  mkdirSync(dirname(keyFile), { recursive: true, mode: 0o700 });
  // Written whole, then linked into place: an instance starting at the same moment either finds
  // the complete file or makes it, never reads half of one.
  let generated = false;
  const draft = `${keyFile}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(draft, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(draft, keyFile);
    generated = true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    rmSync(draft, { force: true });
  }
  chmodSync(keyFile, 0o600);
  const key = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${keyFile} does not hold a master key (base64 of 32 bytes)`);
  return { sealer: createSealer(key, config.previousMasterKeys), keyFile, generated };
}
