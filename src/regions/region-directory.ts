import type { EntityManager } from 'typeorm';

/** A region as pricing sees it. */
export interface RegionInfo {
  id: number;
  name: string;
  currencyCode: string;
  pricesIncludeTax: boolean;
  isDefault: boolean;
  /** In the order given; the first stands in for the address until one is known. */
  countries: string[];
}

/** What other modules may ask of the regions module (bound to RegionsService in RegionsModule). */
export abstract class RegionDirectory {
  /** The region, or the default one for `null`; null when no region has that id. */
  abstract find(manager: EntityManager, id: number | null): Promise<RegionInfo | null>;

  /** The region that serves a country: the one listing it, else the default region. */
  abstract serving(manager: EntityManager, country: string): Promise<RegionInfo>;
}
