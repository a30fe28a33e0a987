import { Controller, Delete, Get, HttpCode, Post, Req, Res, StreamableFile } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AuthUser, CurrentUser } from '../auth/auth-user.js';
import { ApiEnvelope, ApiErrors } from '../common/openapi.js';
import { Public } from '../common/public.decorator.js';
import { ReadsOwnBody } from '../common/validation.js';
import { UploadResultDto } from './dto/upload-result.dto.js';
import { DETECTABLE_TYPES } from './file-type.js';
import { FILE_PART, UploadService } from './upload.service.js';

@ApiTags('upload')
@Controller()
export class UploadController {
  constructor(private readonly uploads: UploadService) {}

  @Post('upload')
  @ReadsOwnBody()
  @HttpCode(200)
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Upload one file',
    description:
      'multipart/form-data with exactly one part, named `file`, holding the file; no other parts or fields. ' +
      "At most UPLOAD_MAX_BYTES (5 MiB by default). The type is detected from the file's bytes and must be " +
      'in UPLOAD_ALLOWED_TYPES (by default image/jpeg, image/png, image/gif, image/webp, application/pdf); ' +
      'the declared type and name are not trusted. The file is stored under a random name and served at ' +
      '`GET /api/v1/uploads/{filename}`; `filename` is the value for a product `image`. A user may upload ' +
      'UPLOAD_QUOTA_BYTES (100 MiB by default) in any 24 hours; a file no product uses is removed ' +
      'UPLOAD_ORPHAN_TTL (24 h by default) after its upload.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: [FILE_PART],
      properties: { [FILE_PART]: { type: 'string', format: 'binary' } },
    },
  })
  @ApiEnvelope(UploadResultDto, { description: 'The stored file' })
  @ApiErrors(400, 401, 429, { 400: { field: 'file', rule: 'empty', message: 'file must not be empty' } })
  upload(@Req() request: Request, @CurrentUser() user: AuthUser): Promise<UploadResultDto> {
    return this.uploads.receive(request, user);
  }

  @Get('uploads/:year/:month/:name')
  @Public()
  @ApiOperation({
    summary: 'Fetch an uploaded file (no token needed)',
    description:
      'The path is the `filename` returned by POST /upload. The body is the file exactly as uploaded, with ' +
      'its detected Content-Type and `X-Content-Type-Options: nosniff`; types other than images come with ' +
      '`Content-Disposition: attachment`. Any other path is 404, a trailing slash or a percent escape too.',
  })
  @ApiParam({ name: 'year', example: '2026' })
  @ApiParam({ name: 'month', example: '11' })
  @ApiParam({ name: 'name', example: '3f9a1c0e5b7d4e2f8a6b1c9d0e7f3a2b.png' })
  @ApiOkResponse({
    description: 'The file',
    content: Object.fromEntries(
      DETECTABLE_TYPES.map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
    ),
  })
  @ApiErrors(404, 429, { 404: 'No uploaded file at this path' })
  async download(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<StreamableFile> {
    const file = await this.uploads.openStored(requestedUpload(request));
    // Set only on success, so that a 404 is never cached. A stored file never changes (a new upload gets
    // a new random name), and product images are embedded by storefronts on other origins.
    response.set({
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'public, max-age=31536000, immutable',
      'Cross-Origin-Resource-Policy': 'cross-origin',
    });
    // A PDF (any non-image) opened inline would run in a viewer on the API's origin: it is downloaded instead.
    if (!file.contentType.startsWith('image/')) response.set('Content-Disposition', 'attachment');
    return new StreamableFile(file.stream, { type: file.contentType, length: file.size });
  }

  @Delete('uploads/:year/:month/:name')
  @ApiBearerAuth()
  @ApiOperation({
    summary: 'Delete an uploaded file (its owner or an admin)',
    description:
      'The path is the `filename` returned by POST /upload. Refused with 400 while a product has the file ' +
      "as its image; 403 for another user's file (uploads are public, so this reveals nothing); 404 for a " +
      'path that is not an upload, and for files stored before uploads had owners. The bytes it took no ' +
      'longer count against the quota.',
  })
  @ApiParam({ name: 'year', example: '2026' })
  @ApiParam({ name: 'month', example: '11' })
  @ApiParam({ name: 'name', example: '3f9a1c0e5b7d4e2f8a6b1c9d0e7f3a2b.png' })
  @ApiEnvelope(null)
  @ApiErrors(400, 401, 403, 404, 429, {
    400: {
      field: 'filename',
      rule: 'inUse',
      message: "the file is an image of product 12; remove it from that product's images first",
    },
    403: 'Only the owner of an upload or an admin may delete it',
    404: 'No uploaded file at this path',
  })
  remove(@Req() request: Request, @CurrentUser() user: AuthUser): Promise<void> {
    return this.uploads.remove(requestedUpload(request), user);
  }
}

const UPLOADS_PREFIX = '/api/v1/uploads/';

/**
 * The filename exactly as written in the request path, not as the router decoded and matched it (the
 * router forgives a trailing slash and decodes `%32` to `2`): anything but the stored form is then 404.
 */
function requestedUpload(request: Request): string {
  const path = request.originalUrl.split('?')[0];
  return path.startsWith(UPLOADS_PREFIX) ? path.slice(UPLOADS_PREFIX.length) : '';
}
