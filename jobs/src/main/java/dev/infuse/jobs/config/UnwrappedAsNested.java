package dev.infuse.jobs.config;

import com.fasterxml.jackson.databind.introspect.AnnotatedMember;
import com.fasterxml.jackson.databind.introspect.JacksonAnnotationIntrospector;
import com.fasterxml.jackson.databind.util.NameTransformer;

/**
 * Reads a {@code @JsonUnwrapped} record component as a plain nested property. Jackson 2.15 writes
 * such a component flat but cannot bind one through a record's constructor ("combination not yet
 * supported"); a mapper with this introspector binds it from an object of its own, which is what
 * {@link ConfigLoader} makes of the flat keys first.
 */
public final class UnwrappedAsNested extends JacksonAnnotationIntrospector {
  private static final long serialVersionUID = 1L;

  @Override
  public NameTransformer findUnwrappingNameTransformer(AnnotatedMember member) {
    return null;
  }
}
