"""Another device: the one-time link that hands matches over, and forgetting devices."""

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for
from flask_babel import gettext
from werkzeug.wrappers import Response

from counter.game.refusals import N_, NotFound
from counter.services import devices, forgetting, keys
from counter.web import forms, limits
from counter.web.browser import changed, current_owner, ensure_device, new_token, this_device
from counter.web.qr import qr_svg

bp = limits.writes(Blueprint("devices", __name__))


@bp.post("/device-link")
@limits.links
def device_link() -> str:
    token = keys.create_device_link(device=ensure_device())
    url = url_for("devices.continue_here", token=token, _external=True)
    return render_template("device.html", url=url, qr=qr_svg(url))


@bp.get("/continue/<token>")
def continue_here(token: str) -> str:
    handover = keys.preview_device_link(token=token, device=this_device())
    return render_template("continue.html", token=token, handover=handover)


@bp.post("/continue/<token>")
@limits.links
def take_over(token: str) -> Response:
    """Spend the link: this device now holds the other's key (and brings its own matches)."""
    bring_own = request.form.get("bring_own") == "1"
    keys.use_device_link(token=token, device=ensure_device(), bring_own=bring_own)
    changed()
    if bring_own:
        flash(gettext("This device now keeps the other one's matches, and its own with them."))
    else:
        flash(gettext("This device now keeps the other one's matches."))
    return redirect(url_for("play.home"))


@bp.post("/devices/<id:device_id>/forget")
def forget_device(device_id: int) -> Response | str:
    asking = this_device()
    if asking is None:
        raise NotFound(N_("That device no longer has these matches."))
    if not forms.confirmed():
        return forms.confirm_page(
            title=gettext("Remove this device?"),
            message=gettext(
                "It no longer sees or changes these matches, at once. It keeps only what "
                "it had before it joined them."
            ),
            button=gettext("Remove the device"),
            danger=True,
            back=url_for("privacy.privacy"),
        )
    devices.forget_device(owner=asking.owner, asking=asking.id, device_id=device_id)
    flash(gettext("That device no longer has these matches."))
    return redirect(url_for("privacy.privacy"))


@bp.post("/devices/forget")
def forget_devices() -> Response | str:
    """Forget every other device this one may remove, and every copy of its cookie."""
    if current_owner() is None:
        flash(gettext("No other device has this browser's matches."))
        return redirect(url_for("privacy.privacy"))
    nonce = forms.nonce()
    if not forms.confirmed():
        return forms.confirm_page(
            title=gettext("Forget other devices?"),
            message=gettext(
                "Every other phone or browser that continues this browser's matches loses "
                "them at once. This browser keeps them all."
            ),
            button=gettext("Forget other devices"),
            danger=True,
            back=url_for("privacy.privacy"),
        )
    token = forgetting.forget_others(
        token=ensure_device().token, nonce=nonce, secret=current_app.config["SECRET_KEY"]
    )
    new_token(token)
    flash(gettext("Other devices no longer have this browser's matches."))
    return redirect(url_for("privacy.privacy"))
