package dev.ondevice.train;

import java.util.OptionalDouble;

/**
 * Where an epoch stands after a batch: the batches and samples done so far, and the latest running
 * loss the host knows. That loss is read from the device only every few batches, without waiting
 * (see {@link RunningLoss}), so it lags behind the batches and is empty until the first read.
 *
 * @param epoch the epoch, counted from 1
 * @param batches the batches trained so far in this epoch, this one included
 * @param samples the samples trained so far in this epoch, this batch's included
 * @param runningLoss the mean loss of the epoch's first batches, as last read; empty before the
 *     first read
 */
public record BatchStats(int epoch, int batches, long samples, OptionalDouble runningLoss) {}
