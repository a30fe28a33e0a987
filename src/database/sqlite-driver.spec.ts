import { describe, expect, it } from '@jest/globals';
import { sqliteDriverName } from './sqlite-driver.js';

describe('sqliteDriverName', () => {
  it('better-sqlite3 13 from Node.js 22 on; the 12 built for Node.js 20 before', () => {
    expect(sqliteDriverName('20.20.2')).toBe('better-sqlite3-node20');
    expect(sqliteDriverName('21.7.3')).toBe('better-sqlite3-node20');
    expect(sqliteDriverName('22.0.0')).toBe('better-sqlite3');
    expect(sqliteDriverName('24.21.0')).toBe('better-sqlite3');
    expect(sqliteDriverName('26.10.0')).toBe('better-sqlite3');
  });
});
