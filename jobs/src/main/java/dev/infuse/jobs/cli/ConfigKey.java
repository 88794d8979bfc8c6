package dev.infuse.jobs.cli;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Binds a command's option to a config key: the option, when given, sets the key over every {@code
 * --config} file and {@code --set}. {@link ConfigOptions} does the binding, and shows the key and
 * its default from {@code defaults.yaml} in {@code --help}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface ConfigKey {
  /** The key as the YAML spells it, such as {@code chunk.max_tokens}. */
  String value();
}
