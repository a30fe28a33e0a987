import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'isPublic';

/** Opens a route to callers without a bearer token. */
export const Public = () => SetMetadata(IS_PUBLIC, true);

export const CATALOG_READ = 'catalogRead';

/** A catalogue read: open to callers without a token when CATALOG_PUBLIC=true (a token sent is still checked). */
export const CatalogRead = () => SetMetadata(CATALOG_READ, true);
