import type { MigrationInterface } from 'typeorm';
import { CreateUsers1763800000000 } from './1763800000000-create-users.js';
import { CreateProducts1763800100000 } from './1763800100000-create-products.js';
import { CreateOrders1763800200000 } from './1763800200000-create-orders.js';
import { CreateSessions1763800300000 } from './1763800300000-create-sessions.js';
import { AddCheckConstraints1763800400000 } from './1763800400000-add-check-constraints.js';
import { MillisecondTimestamps1763800500000 } from './1763800500000-millisecond-timestamps.js';
import { IndexOrdersForBackOffice1763800600000 } from './1763800600000-index-orders-for-back-office.js';
import { CreateUploads1763800700000 } from './1763800700000-create-uploads.js';
import { IndexProductSearchAndSorts1763800800000 } from './1763800800000-index-product-search-and-sorts.js';
import { CreateCatalogState1763800900000 } from './1763800900000-create-catalog-state.js';
import { RecordRotatedRefreshTokens1763800950000 } from './1763800950000-record-rotated-refresh-tokens.js';
import { CreateOutboxEvents1763801000000 } from './1763801000000-create-outbox-events.js';
import { CreateJobs1763801100000 } from './1763801100000-create-jobs.js';
import { CreateCategories1763801200000 } from './1763801200000-create-categories.js';
import { CreateWebhooks1763801250000 } from './1763801250000-create-webhooks.js';
import { CreateAccountTokens1763801300000 } from './1763801300000-create-account-tokens.js';

import { CreateProductVariants1763801400000 } from './1763801400000-create-product-variants.js';
import { AddProductImagesSlugsAndSearchText1763802400000 } from './1763802400000-add-product-images-slugs-and-search-text.js';
import { CreateAddresses1763801270000 } from './1763801270000-create-addresses.js';
import { CreateShippingOptions1763801280000 } from './1763801280000-create-shipping-options.js';
import { CreateCarts1763802500000 } from './1763802500000-create-carts.js';
import { CreatePayments1763802600000 } from './1763802600000-create-payments.js';
import { CreateProductWords1763802700000 } from './1763802700000-create-product-words.js';
import { AddRefundRequestHash1763802800000 } from './1763802800000-add-refund-request-hash.js';
import { CreateRegionsAndTaxes1763802900000 } from './1763802900000-create-regions-and-taxes.js';
import { CreateCustomerGroups1763803000000 } from './1763803000000-create-customer-groups.js';
import { CreatePriceLists1763803100000 } from './1763803100000-create-price-lists.js';
import { CreatePromotions1763803200000 } from './1763803200000-create-promotions.js';
import { AddDraftOrders1763803800000 } from './1763803800000-add-draft-orders.js';
import { CreateSearchWords1763804100000 } from './1763804100000-create-search-words.js';
import { CreateGiftCards1763803300000 } from './1763803300000-create-gift-cards.js';
import { IndexOrdersByEmail1763803400000 } from './1763803400000-index-orders-by-email.js';
import { CreateFulfilments1763803500000 } from './1763803500000-create-fulfilments.js';
import { CreateReturns1763803600000 } from './1763803600000-create-returns.js';
import { RecordOrderHistory1763803700000 } from './1763803700000-record-order-history.js';
import { CreateProductOptionValues1763803900000 } from './1763803900000-create-product-option-values.js';
import { CreateSearchSynonyms1763804000000 } from './1763804000000-create-search-synonyms.js';

// Migrations in the order they apply; a new migration is appended here.
export const migrations: Array<new () => MigrationInterface> = [
  CreateUsers1763800000000,
  CreateProducts1763800100000,
  CreateOrders1763800200000,
  CreateSessions1763800300000,
  AddCheckConstraints1763800400000,
  MillisecondTimestamps1763800500000,
  IndexOrdersForBackOffice1763800600000,
  CreateUploads1763800700000,
  IndexProductSearchAndSorts1763800800000,
  CreateCatalogState1763800900000,
  RecordRotatedRefreshTokens1763800950000,
  CreateOutboxEvents1763801000000,
  CreateJobs1763801100000,
  CreateCategories1763801200000,
  CreateWebhooks1763801250000,
  CreateAddresses1763801270000,
  CreateShippingOptions1763801280000,
  CreateAccountTokens1763801300000,
  CreateProductVariants1763801400000,
  AddProductImagesSlugsAndSearchText1763802400000,
  CreateCarts1763802500000,
  CreatePayments1763802600000,
  CreateProductWords1763802700000,
  AddRefundRequestHash1763802800000,
  CreateRegionsAndTaxes1763802900000,
  CreateCustomerGroups1763803000000,
  CreatePriceLists1763803100000,
  CreatePromotions1763803200000,
  CreateGiftCards1763803300000,
  IndexOrdersByEmail1763803400000,
  CreateFulfilments1763803500000,
  CreateReturns1763803600000,
  RecordOrderHistory1763803700000,
  AddDraftOrders1763803800000,
  CreateProductOptionValues1763803900000,
  CreateSearchSynonyms1763804000000,
  CreateSearchWords1763804100000,
];
