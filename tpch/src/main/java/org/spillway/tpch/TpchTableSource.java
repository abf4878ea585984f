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
import org.spillway.storage.BatchBuilder;

/**
 * One TPC-H table as io.trino.tpch generates it: its generator, how many rows to expect, and how an entity
 * fills a batch row in {@link TpchSchema} column order. Money comes from the exact "in cents" accessors.
 *
 * @param scaleBase rows of the driving entity at SF 1 (orders for lineitem, parts for partsupp); 0 for
 *     the unscaled nation and region
 * @param rowsPerUnit rows per driving entity (average for lineitem), or the fixed row count if unscaled
 */
record TpchTableSource<E extends TpchEntity>(String name, TpchTable<E> table, int scaleBase, int rowsPerUnit,
    RowWriter<E> rowWriter) {

  /** Copies one entity into one row of a batch. */
  @FunctionalInterface
  interface RowWriter<E> {
    void write(E entity, BatchBuilder batch, int row);
  }

  /** Lines per order average 4 (1 to 7 uniformly); the exact count is known only after generation. */
  private static final int AVERAGE_LINES_PER_ORDER = 4;
  private static final int SUPPLIERS_PER_PART = 4;

  /** The eight tables in {@link TpchSchema#TABLE_NAMES} order. */
  static List<TpchTableSource<?>> all() {
    return List.of(
        new TpchTableSource<>("lineitem", TpchTable.LINE_ITEM, OrderGenerator.SCALE_BASE, AVERAGE_LINES_PER_ORDER,
            TpchTableSource::writeLineItem),
        new TpchTableSource<>("orders", TpchTable.ORDERS, OrderGenerator.SCALE_BASE, 1, TpchTableSource::writeOrder),
        new TpchTableSource<>("partsupp", TpchTable.PART_SUPPLIER, PartGenerator.SCALE_BASE, SUPPLIERS_PER_PART,
            TpchTableSource::writePartSupplier),
        new TpchTableSource<>("part", TpchTable.PART, PartGenerator.SCALE_BASE, 1, TpchTableSource::writePart),
        new TpchTableSource<>("customer", TpchTable.CUSTOMER, CustomerGenerator.SCALE_BASE, 1,
            TpchTableSource::writeCustomer),
        new TpchTableSource<>("supplier", TpchTable.SUPPLIER, SupplierGenerator.SCALE_BASE, 1,
            TpchTableSource::writeSupplier),
        new TpchTableSource<>("nation", TpchTable.NATION, 0, 25, TpchTableSource::writeNation),
        new TpchTableSource<>("region", TpchTable.REGION, 0, 5, TpchTableSource::writeRegion));
  }

  /** Expected rows at this scale factor: exact for all tables but lineitem, which is estimated. */
  long expectedRows(double scaleFactor) {
    return scaleBase == 0 ? rowsPerUnit : GenerateUtils.calculateRowCount(scaleBase, scaleFactor, 1, 1) * rowsPerUnit;
  }

  /** The rows of one part (1-based) of {@code partCount}. */
  Iterable<E> generate(double scaleFactor, int part, int partCount) {
    return table.createGenerator(scaleFactor, part, partCount);
  }

  private static void writeLineItem(LineItem e, BatchBuilder b, int row) {
    b.setLong(0, row, e.getOrderKey());
    b.setLong(1, row, e.getPartKey());
    b.setLong(2, row, e.getSupplierKey());
    b.setInt(3, row, e.getLineNumber());
    b.setDecimal(4, row, e.getQuantity() * 100);
    b.setDecimal(5, row, e.getExtendedPriceInCents());
    b.setDecimal(6, row, e.getDiscountPercent());
    b.setDecimal(7, row, e.getTaxPercent());
    b.setString(8, row, e.getReturnFlag());
    b.setString(9, row, e.getStatus());
    b.setDate(10, row, e.getShipDate());
    b.setDate(11, row, e.getCommitDate());
    b.setDate(12, row, e.getReceiptDate());
    b.setString(13, row, e.getShipInstructions());
    b.setString(14, row, e.getShipMode());
    b.setString(15, row, e.getComment());
  }

  private static void writeOrder(Order e, BatchBuilder b, int row) {
    b.setLong(0, row, e.getOrderKey());
    b.setLong(1, row, e.getCustomerKey());
    b.setString(2, row, String.valueOf(e.getOrderStatus()));
    b.setDecimal(3, row, e.getTotalPriceInCents());
    b.setDate(4, row, e.getOrderDate());
    b.setString(5, row, e.getOrderPriority());
    b.setString(6, row, e.getClerk());
    b.setInt(7, row, e.getShipPriority());
    b.setString(8, row, e.getComment());
  }

  private static void writePartSupplier(PartSupplier e, BatchBuilder b, int row) {
    b.setLong(0, row, e.getPartKey());
    b.setLong(1, row, e.getSupplierKey());
    b.setInt(2, row, e.getAvailableQuantity());
    b.setDecimal(3, row, e.getSupplyCostInCents());
    b.setString(4, row, e.getComment());
  }

  private static void writePart(Part e, BatchBuilder b, int row) {
    b.setLong(0, row, e.getPartKey());
    b.setString(1, row, e.getName());
    b.setString(2, row, e.getManufacturer());
    b.setString(3, row, e.getBrand());
    b.setString(4, row, e.getType());
    b.setInt(5, row, e.getSize());
    b.setString(6, row, e.getContainer());
    b.setDecimal(7, row, e.getRetailPriceInCents());
    b.setString(8, row, e.getComment());
  }

  private static void writeCustomer(Customer e, BatchBuilder b, int row) {
    b.setLong(0, row, e.getCustomerKey());
    b.setString(1, row, e.getName());
    b.setString(2, row, e.getAddress());
    b.setLong(3, row, e.getNationKey());
    b.setString(4, row, e.getPhone());
    b.setDecimal(5, row, e.getAccountBalanceInCents());
    b.setString(6, row, e.getMarketSegment());
    b.setString(7, row, e.getComment());
  }

  private static void writeSupplier(Supplier e, BatchBuilder b, int row) {
    b.setLong(0, row, e.getSupplierKey());
    b.setString(1, row, e.getName());
    b.setString(2, row, e.getAddress());
    b.setLong(3, row, e.getNationKey());
    b.setString(4, row, e.getPhone());
    b.setDecimal(5, row, e.getAccountBalanceInCents());
    b.setString(6, row, e.getComment());
  }

  private static void writeNation(Nation e, BatchBuilder b, int row) {
    b.setLong(0, row, e.getNationKey());
    b.setString(1, row, e.getName());
    b.setLong(2, row, e.getRegionKey());
    b.setString(3, row, e.getComment());
  }

  private static void writeRegion(Region e, BatchBuilder b, int row) {
    b.setLong(0, row, e.getRegionKey());
    b.setString(1, row, e.getName());
    b.setString(2, row, e.getComment());
  }
}
