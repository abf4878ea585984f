package org.spillway.gpu.transfer;

/** Whether a transfer method works on a device, and if not, why. */
public record TransferSupport(boolean supported, String reason) {
  public static TransferSupport yes() {
    return new TransferSupport(true, "");
  }

  public static TransferSupport no(String reason) {
    return new TransferSupport(false, reason);
  }
}
