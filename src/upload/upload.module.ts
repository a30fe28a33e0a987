import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { OrphanUploadRemoval } from './orphan-upload-removal.js';
import { UploadController } from './upload.controller.js';
import { Upload } from './upload.entity.js';
import { UploadHolds } from './upload-holds.js';
import { UploadService } from './upload.service.js';
import { S3UploadStorage } from './s3-upload-storage.js';
import { LocalDiskStorage, UploadStorage } from './upload-storage.js';

@Module({
  imports: [TypeOrmModule.forFeature([Upload])],
  controllers: [UploadController],
  providers: [
    UploadService,
    { provide: UploadHolds, useExisting: UploadService },
    OrphanUploadRemoval,
    {
      provide: UploadStorage,
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig) => {
        const storage =
          config.upload.storage === 's3'
            ? new S3UploadStorage({ ...config.s3, bucket: config.s3.bucket as string })
            : new LocalDiskStorage(config.upload.dir);
        await storage.prepare();
        return storage;
      },
    },
  ],
  exports: [UploadHolds],
})
export class UploadModule {}
