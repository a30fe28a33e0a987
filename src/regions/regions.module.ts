import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Region, RegionCountry } from './region.entity.js';
import { RegionDirectory } from './region-directory.js';
import { RegionsController } from './regions.controller.js';
import { RegionsService } from './regions.service.js';

/** Other modules import this module and inject RegionDirectory, its public surface (docs/extending.md). */
@Module({
  imports: [TypeOrmModule.forFeature([Region, RegionCountry])],
  controllers: [RegionsController],
  providers: [RegionsService, { provide: RegionDirectory, useExisting: RegionsService }],
  exports: [RegionDirectory],
})
export class RegionsModule {}
