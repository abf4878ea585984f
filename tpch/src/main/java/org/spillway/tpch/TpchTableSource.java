package org.spillway.tpch;

import io.trino.tpch.Customer;
import io.trino.tpch.CustomerGenerator;
import io.trino.tpch.GenerateUtils;
import io.trino.tpch.LineItem;
import io.trino.tpch.Nation;
import io.trino.tpch.Order;
import io.trino.tpch.OrderGenerator;
import io.trino.tpch.Part;
import io.trino.tpch.PartGenerator;
import io.trino.tpch.PartSupplier;
import io.trino.tpch.Region;
import io.trino.tpch.Supplier;
import io.trino.tpch.SupplierGenerator;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;
import org.spillway.storage.BatchBuilder;

/**
 * One TPC-H table as io.trino.tpch generates it: its generator, how many rows to expect, and one writer per
 * column in {@link TpchSchema} column order, so that a run can write only some of the columns. Money comes
 * from the exact "in cents" accessors.
 *
 * @param scaleBase rows of the driving entity at SF 1 (orders for lineitem, parts for partsupp); 0 for
 *     the unscaled nation and region
 * @param rowsPerUnit rows per driving entity (average for lineitem), or the fixed row count if unscaled
 */
record TpchTableSource<E extends TpchEntity>(String name, TpchTable<E> table, int scaleBase, int rowsPerUnit,
    List<ColumnWriter<E>> columns) {

  /** Copies one field of an entity into one cell of a batch. */
  @FunctionalInterface
  interface ColumnWriter<E> {
    void write(E entity, BatchBuilder batch, int column, int row);
  }

  /** Lines per order average 4 (1 to 7 uniformly); the exact count is known only after generation. */
  private static final int AVERAGE_LINES_PER_ORDER = 4;
  private static final int SUPPLIERS_PER_PART = 4;

  /** The eight tables in {@link TpchSchema#TABLE_NAMES} order. */
  static List<TpchTableSource<?>> all() {
    return List.of(
        new TpchTableSource<>("lineitem", TpchTable.LINE_ITEM, OrderGenerator.SCALE_BASE, AVERAGE_LINES_PER_ORDER,
            List.of(longs(LineItem::getOrderKey), longs(LineItem::getPartKey), longs(LineItem::getSupplierKey),
                ints(LineItem::getLineNumber), decimals(e -> e.getQuantity() * 100L),
                decimals(LineItem::getExtendedPriceInCents), decimals(LineItem::getDiscountPercent),
                decimals(LineItem::getTaxPercent), strings(LineItem::getReturnFlag), strings(LineItem::getStatus),
                dates(LineItem::getShipDate), dates(LineItem::getCommitDate), dates(LineItem::getReceiptDate),
                strings(LineItem::getShipInstructions), strings(LineItem::getShipMode),
                strings(LineItem::getComment))),
        new TpchTableSource<>("orders", TpchTable.ORDERS, OrderGenerator.SCALE_BASE, 1,
            List.of(longs(Order::getOrderKey), longs(Order::getCustomerKey),
                strings(e -> String.valueOf(e.getOrderStatus())), decimals(Order::getTotalPriceInCents),
                dates(Order::getOrderDate), strings(Order::getOrderPriority), strings(Order::getClerk),
                ints(Order::getShipPriority), strings(Order::getComment))),
        new TpchTableSource<>("partsupp", TpchTable.PART_SUPPLIER, PartGenerator.SCALE_BASE, SUPPLIERS_PER_PART,
            List.of(longs(PartSupplier::getPartKey), longs(PartSupplier::getSupplierKey),
                ints(PartSupplier::getAvailableQuantity), decimals(PartSupplier::getSupplyCostInCents),
                strings(PartSupplier::getComment))),
        new TpchTableSource<>("part", TpchTable.PART, PartGenerator.SCALE_BASE, 1,
            List.of(longs(Part::getPartKey), strings(Part::getName), strings(Part::getManufacturer),
                strings(Part::getBrand), strings(Part::getType), ints(Part::getSize), strings(Part::getContainer),
                decimals(Part::getRetailPriceInCents), strings(Part::getComment))),
        new TpchTableSource<>("customer", TpchTable.CUSTOMER, CustomerGenerator.SCALE_BASE, 1,
            List.of(longs(Customer::getCustomerKey), strings(Customer::getName), strings(Customer::getAddress),
                longs(Customer::getNationKey), strings(Customer::getPhone),
                decimals(Customer::getAccountBalanceInCents), strings(Customer::getMarketSegment),
                strings(Customer::getComment))),
        new TpchTableSource<>("supplier", TpchTable.SUPPLIER, SupplierGenerator.SCALE_BASE, 1,
            List.of(longs(Supplier::getSupplierKey), strings(Supplier::getName), strings(Supplier::getAddress),
                longs(Supplier::getNationKey), strings(Supplier::getPhone),
                decimals(Supplier::getAccountBalanceInCents), strings(Supplier::getComment))),
        new TpchTableSource<>("nation", TpchTable.NATION, 0, 25,
            List.of(longs(Nation::getNationKey), strings(Nation::getName), longs(Nation::getRegionKey),
                strings(Nation::getComment))),
        new TpchTableSource<>("region", TpchTable.REGION, 0, 5,
            List.of(longs(Region::getRegionKey), strings(Region::getName), strings(Region::getComment))));
  }

  /** Expected rows at this scale factor: exact for all tables but lineitem, which is estimated. */
  long expectedRows(double scaleFactor) {
    return scaleBase == 0 ? rowsPerUnit : GenerateUtils.calculateRowCount(scaleBase, scaleFactor, 1, 1) * rowsPerUnit;
  }

  /** The rows of one part (1-based) of {@code partCount}. */
  Iterable<E> generate(double scaleFactor, int part, int partCount) {
    return table.createGenerator(scaleFactor, part, partCount);
  }

  private static <E> ColumnWriter<E> longs(ToLongFunction<E> field) {
    return (e, b, column, row) -> b.setLong(column, row, field.applyAsLong(e));
  }

  private static <E> ColumnWriter<E> ints(ToIntFunction<E> field) {
    return (e, b, column, row) -> b.setInt(column, row, field.applyAsInt(e));
  }

  private static <E> ColumnWriter<E> decimals(ToLongFunction<E> unscaled) {
    return (e, b, column, row) -> b.setDecimal(column, row, unscaled.applyAsLong(e));
  }

  private static <E> ColumnWriter<E> dates(ToIntFunction<E> epochDay) {
    return (e, b, column, row) -> b.setDate(column, row, epochDay.applyAsInt(e));
  }

  private static <E> ColumnWriter<E> strings(Function<E, String> field) {
    return (e, b, column, row) -> b.setString(column, row, field.apply(e));
  }
}
