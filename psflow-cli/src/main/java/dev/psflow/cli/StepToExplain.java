package dev.psflow.cli;

import dev.psflow.distributed.Explanation;

/** A program that can describe its step for {@code psflow explain} without starting anything. */
interface StepToExplain {
  Explanation.Step describeStep();
}
