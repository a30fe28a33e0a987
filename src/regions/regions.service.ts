import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { RegionDirectory, type RegionInfo } from './region-directory.js';
import { REGION_BY_ID, REGION_SERVING, type RegionRow, regionOf } from './region-statements.js';

@Injectable()
export class RegionsService extends RegionDirectory {
  async find(manager: EntityManager, id: number | null): Promise<RegionInfo | null> {
    return regionOf((await manager.query(REGION_BY_ID, [id])) as RegionRow[]);
  }

  async serving(manager: EntityManager, country: string): Promise<RegionInfo> {
    return regionOf((await manager.query(REGION_SERVING, [country])) as RegionRow[])!;
  }
}
