import { ApiProperty } from '@nestjs/swagger';

export class UploadResultDto {
  @ApiProperty({
    example: '2026/11/3f9a1c0e5b7d4e2f8a6b1c9d0e7f3a2b.png',
    description:
      'Stored path, relative to the upload root: `YYYY/MM/<random>.<ext>`. Served at ' +
      '`GET /api/v1/uploads/{filename}`; the value a product `image` holds.',
  })
  filename: string;

  @ApiProperty({
    example: 'espresso-cup.png',
    description: 'The name the client sent, sanitised for display (last path segment, no control characters)',
  })
  original_name: string;

  @ApiProperty({ type: 'integer', example: 48213, description: 'Exact size in bytes' })
  size: number;

  @ApiProperty({ example: 'image/png', description: "Detected from the file's bytes, not the declared type" })
  content_type: string;
}
