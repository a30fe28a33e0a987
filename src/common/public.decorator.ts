import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'isPublic';

/** Opens a route to callers without a bearer token. */
export const Public = () => SetMetadata(IS_PUBLIC, true);

export const CATALOG_READ = 'catalogRead';

/** A catalogue read: open to callers without a token when CATALOG_PUBLIC=true (a token sent is still checked). */
export const CatalogRead = () => SetMetadata(CATALOG_READ, true);

export const OPTIONAL_AUTH = 'optionalAuth';

/**
 * Open to callers without an Authorization header (an anonymous cart, a guest's order read with its token); a
 * token sent is still checked, and the handler sees the caller or `undefined`.
 */
export const OptionalAuth = () => SetMetadata(OPTIONAL_AUTH, true);
