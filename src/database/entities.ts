import { Cart, CartItem } from '../carts/cart.entity.js';
import { Category } from '../categories/category.entity.js';
import { AccountToken } from '../auth/account-token.entity.js';
import { OrderAdjustment, OrderItem, OrderTaxLine } from '../orders/order-item.entity.js';
import { Region, RegionCountry } from '../regions/region.entity.js';
import { TaxRateRow } from '../taxes/tax-rate.entity.js';
import { Order } from '../orders/order.entity.js';
import { Fulfilment, FulfilmentItem } from '../fulfilments/fulfilment.entity.js';
import { Return, ReturnItem } from '../returns/return.entity.js';
import { OrderNote } from '../order-timeline/order-note.entity.js';
import { Payment, PaymentRefund } from '../payments/payment.entity.js';
import { Product } from '../products/product.entity.js';
import { Session } from '../sessions/session.entity.js';
import { Upload } from '../upload/upload.entity.js';
import { User } from '../users/user.entity.js';
import { WebhookDelivery } from '../webhooks/webhook-delivery.entity.js';
import { Webhook } from '../webhooks/webhook.entity.js';
import { Address } from '../addresses/address.entity.js';
import { ShippingOption } from '../shipping-options/shipping-option.entity.js';
import { CustomerGroup, CustomerGroupMember } from '../customer-groups/customer-group.entity.js';
import { PriceList, PriceListCustomerGroup, PriceListPrice } from '../price-lists/price-list.entity.js';
import { GiftCard } from '../gift-cards/gift-card.entity.js';
import { CartDiscountCode, Promotion, PromotionUsage } from '../promotions/promotion.entity.js';
import { SearchSynonym } from '../search/search-synonym.entity.js';

// Every TypeORM entity of the service; each domain module adds its own here.
export const entities: Array<new () => object> = [
  User,
  Product,
  Order,
  OrderItem,
  Session,
  Upload,
  Webhook,
  WebhookDelivery,
  Category,
  AccountToken,
  Payment,
  PaymentRefund,
  Address,
  ShippingOption,
  Cart,
  CartItem,
  OrderTaxLine,
  OrderAdjustment,
  Region,
  RegionCountry,
  TaxRateRow,
  CustomerGroup,
  CustomerGroupMember,
  PriceList,
  PriceListCustomerGroup,
  PriceListPrice,
  GiftCard,
  Promotion,
  CartDiscountCode,
  PromotionUsage,
  Fulfilment,
  FulfilmentItem,
  Return,
  ReturnItem,
  OrderNote,
  SearchSynonym,
];
