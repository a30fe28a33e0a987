import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'isPublic';

/** Opens a route to callers without a bearer token. */
export const Public = () => SetMetadata(IS_PUBLIC, true);
