/**
 * The multi-provider token of the modules' OrderTimelineSource implementations (an array, registered in
 * OrderTimelineModule): an order's timeline is what they all answer, sorted by time.
 */
export const ORDER_TIMELINE_SOURCES = Symbol('ORDER_TIMELINE_SOURCES');
