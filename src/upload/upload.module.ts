import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { OrphanUploadRemoval } from './orphan-upload-removal.js';
import { UploadController } from './upload.controller.js';
import { Upload } from './upload.entity.js';
import { UploadService } from './upload.service.js';
import { LocalDiskStorage, UploadStorage } from './upload-storage.js';

/** Exports UploadService, whose `holdForProduct()` tells a product write whether a path is a stored upload. */
@Module({
  imports: [TypeOrmModule.forFeature([Upload])],
  controllers: [UploadController],
  providers: [
    UploadService,
    OrphanUploadRemoval,
    {
      provide: UploadStorage,
      inject: [APP_CONFIG],
      useFactory: async (config: AppConfig) => {
        const storage = new LocalDiskStorage(config.upload.dir);
        await storage.prepare();
        return storage;
      },
    },
  ],
  exports: [UploadService],
})
export class UploadModule {}
